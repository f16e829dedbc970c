import { describe, expect, it } from 'vitest';
import { quarantineFileFrom, quarantineFileText } from '../../src/devices/quarantine.js';
import { MESSAGE_MAX_CHARS } from '../../src/cloud/device-message.js';

describe('the quarantine file', () => {
  it("reads each evidence line back as quarantine wrote it, up to the message's limit, and no further", () => {
    const line = (n: number): string => `12:00Z inventory failed: ${'the inventory did not finish '.repeat(40)}`.slice(0, n);
    const evidence = [line(301), line(MESSAGE_MAX_CHARS), line(MESSAGE_MAX_CHARS + 1)];
    const back = quarantineFileFrom(quarantineFileText([['U1', { serial: 'S1', since: 1, until: 2, starts: [1], evidence }]]))!;
    expect(back.get('U1')!.evidence).toEqual([line(301), line(MESSAGE_MAX_CHARS), line(MESSAGE_MAX_CHARS)]);
  });
});

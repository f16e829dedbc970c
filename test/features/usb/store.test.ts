import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { addEvent, emptyRecord } from '../../../src/features/usb/port-record.js';
import { PortRecordFile } from '../../../src/features/usb/store.js';
import { captureLogger } from '../../log/capture.js';

// The record per port in the state directory: kept across a restart, and a
// file that is not one the agent wrote (a hand edit, another version) never
// stops the start.

describe('PortRecordFile', () => {
  it('keeps the record and the last kernel record read across a save and a load', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-store-'));
    const file = new PortRecordFile(join(dir, 'usb-ports.json'), captureLogger().logger);
    const record = emptyRecord();
    addEvent(record, classifyUsbLine('usb 1-1.4.2: device descriptor read/64, error -71')!, Date.UTC(2026, 10, 24));
    expect(file.save({ record, source: 'boot /dev/kmsg', seq: 41 })).toBe(true);
    expect(file.load()).toEqual({ record, source: 'boot /dev/kmsg', seq: 41 });
  });

  it('starts empty, with one line, from a file that is not its JSON; keeps what is valid of a hand-edited one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-store-'));
    const path = join(dir, 'usb-ports.json');
    const log = captureLogger();
    const file = new PortRecordFile(path, log.logger);
    writeFileSync(path, '{"record": [1, 2');
    expect(file.load()).toEqual({ record: emptyRecord() });
    expect(log.lines().filter((l) => String(l.msg).includes('is not one the agent wrote'))).toHaveLength(1);
    writeFileSync(
      path,
      JSON.stringify({
        record: {
          ports: {
            '1-2': { days: { '2026-11-24': { failures: { reset: 2, bogus: 5, 'over-current': 'x' }, serials: ['A', 3], failingSerials: [] } }, seenAt: 1 },
            '../etc': { days: {} },
          },
          controllers: { '0000:00:14.0': { days: { 'not-a-day': {} }, seenAt: 1 } },
        },
      }),
    );
    expect(file.load().record).toEqual({
      ports: { '1-2': { days: { '2026-11-24': { failures: { reset: 2 }, serials: ['A'], failingSerials: [] } }, seenAt: 1 } },
      controllers: { '0000:00:14.0': { days: {}, seenAt: 1 } },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { captureLogger } from '../log/capture.js';
import { reportBed } from './bed.js';

// The report loop with a cloud naming, in every answer, 49,999 udids the
// report did not carry (issue 42, finding 12): the line said "the cloud named
// 49999 devices" once, then "39999" on every report, for the 10,000 pairs the
// loop remembered.

describe('a cloud whose every answer names 49,999 devices the report did not carry', () => {
  it('is said once, with the true count; the reports after it bring the line back no more', async () => {
    const log = captureLogger();
    const bed = reportBed({ logger: log.logger, schedule: '* * * * *' });
    bed.cloud.alsoNamed = Array.from({ length: 49_999 }, (_, i) => ({ udid: `ELSEWHERE${i}`, message: 'registered on another node' }));
    bed.source.list(['P1'], 'device', false);
    bed.loop.start();
    await bed.advance(5 * 60_000, 1_000);
    // The start report and one a minute after it.
    expect(bed.cloud.bodies.filter((b) => b.delivered).length).toBeGreaterThanOrEqual(5);
    const lines = log.lines().filter((l) => /^the cloud named \d+ devices? in failedDevices/.test(String(l.msg)));
    expect(lines.map((l) => l.named)).toEqual([49_999]);
    expect(String(lines[0]!.msg)).toContain('the cloud named 49999 devices in failedDevices that the report did not carry (ELSEWHERE0,');
  }, 60_000);
});

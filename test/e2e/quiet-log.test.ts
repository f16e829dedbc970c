import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';

// Issue 34, finding 7: the daemon wrote one info line per report (1,440 a
// day per host at the default schedule). In steady state, at the default
// log level, scheduled reports without news write nothing.

const bed = new DaemonBed('pixel-8-pro');

beforeAll(() => bed.start());
afterAll(() => bed.stop());

describe('a quiet log in steady state', () => {
  it('writes no line per scheduled report at info, while the reports go on', async () => {
    await bed.plug('QUIET001');
    const a = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *' });
    const first = await bed.cloud.waitForPut((r) => devicesOf(r).length === 1, 20_000);
    // The start and what settles after it (news) are said at info; then steady
    // state: from the second scheduled report after the first with the phone
    // (was: 4 s, then 12 s on the 2 s schedule).
    const after = (t: number, n: number) => () => bed.cloud.putRequests().filter((r) => r.receivedAt > t && r.answer !== undefined).length >= n;
    await bed.cloud.waitForPut(after(first.receivedAt, 2), 20_000);
    const t0 = Date.now();
    await bed.cloud.waitForPut(after(t0, 4), 30_000);
    expect(bed.cloud.putRequests().filter((r) => r.receivedAt >= t0).length).toBeGreaterThanOrEqual(4);
    const since = a.logs().filter((l) => Date.parse(String(l.time)) >= t0);
    expect(since.map((l) => `${String(l.msg)} (${String(l.reason)})`)).toEqual([]);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});

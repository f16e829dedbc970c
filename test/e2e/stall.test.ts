import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// The whole daemon stops running for a while and then goes on: a paused VM
// or container (`docker pause`, a live migration), a debugger, a host
// swapping hard. Unlike a wall clock step, both clocks move on, and every
// timer is late at once. The scheduled runs that passed meanwhile must not
// all go out on resume (a burst of reports from every paused host), and the
// schedule must go on afterwards.

const bed = new DaemonBed('pixel-8-pro');

beforeAll(() => bed.start());
afterAll(() => bed.stop());

describe('a daemon stopped and resumed (SIGSTOP, SIGCONT)', () => {
  it('sends at most one catch-up report, then keeps its schedule', async () => {
    await bed.plug('STALL001');
    // Scheduled reports without news are logged at debug (a quiet log, issue 34).
    const a = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_LOG_LEVEL: 'debug' });
    await a.waitForLog((l) => l.msg === 'report delivered' && String(l.reason).includes('schedule'), 20_000);
    const putsBetween = (from: number, to: number) => bed.cloud.putRequests().filter((r) => r.receivedAt >= from && r.receivedAt < to);

    a.child.kill('SIGSTOP');
    // Three scheduled runs pass while it is stopped (a burst of them and the
    // cadence's next is more than the three allowed below; the catch-up rule itself is the
    // scheduler's, on virtual time in test/timing/scheduler.test.ts).
    await sleep(6_000);
    const resumed = Date.now();
    a.child.kill('SIGCONT');
    // Two reports on the schedule once 3 s have passed (was: 3 s, then 6 s).
    await bed.cloud.waitForPut(() => bed.cloud.putRequests().filter((r) => r.receivedAt >= resumed + 3_000 && r.answer !== undefined).length >= 2, 20_000);
    // One for the missed runs together, at most one or two for the 2 s cadence.
    expect(putsBetween(resumed, resumed + 3_000).length).toBeLessThanOrEqual(3);

    const after = putsBetween(resumed + 3_000, Infinity);
    expect(after.length).toBeGreaterThanOrEqual(2);
    const last = devicesOf(after.at(-1)!);
    expect(last.map((d) => [d.udid, d.status])).toEqual([['STALL001', 'AVAILABLE']]);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});

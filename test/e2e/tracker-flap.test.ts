import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackerCutter } from '../sim/tracker-cutter.js';
import { DaemonBed } from './daemon-bed.js';
import { devicesOf } from '../support/reports.js';
import { sleep, waitFor } from '../support/wait.js';

// Issue 23, item 3: adb's device tracker dies right after connecting (a
// crash-looping adb server, a tunnel that cuts idle connections), while the
// adb server and the phones answer. Before: in 30 s, 123 tracker reconnects,
// 124 PUTs, about 370 shell sessions and about 500 log lines.

const bed = new DaemonBed('pixel-8-pro');
let cutter: TrackerCutter;

beforeAll(async () => {
  await bed.start();
  cutter = new TrackerCutter({ adbPort: bed.adb.port, cutAfterMs: 50 });
  await cutter.start();
});

afterAll(async () => {
  await bed.stop();
  await cutter.stop();
});

describe('a device tracker that dies right after connecting', () => {
  it('reconnects on a growing wait, makes no burst of reports or shell sessions, and says it in a few lines', async () => {
    const devices = [await bed.plug('FLAP0001'), await bed.plug('FLAP0002')];
    const agent = bed.run({ ...cutter.env });
    await bed.cloud.waitForPut((r) => devicesOf(r).length === 2, 30_000);
    const from = Date.now();
    const trackers = cutter.trackers;
    const sessions = devices.map((d) => d.shellSessions);
    const lines = agent.logs().length;
    // 6 s (was 20): 3 to 5 reconnects on the growing wait, 24 at 4 a
    // second; the waits themselves are test/util/reconnects.test.ts's, on virtual time.
    await sleep(6_000);
    const puts = bed.cloud.putRequests().filter((r) => r.receivedAt >= from);
    const newLines = agent.logs().slice(lines);
    const reconnects = cutter.trackers - trackers;
    // Waits of 0.25, 0.5, 1, 2, 4 s (each between half and all of it): not 4 a second.
    expect(reconnects).toBeLessThanOrEqual(10);
    // At most one full report for tracking coming back in a period (the schedule here is a year), nothing per reconnect.
    expect(puts.length).toBeLessThanOrEqual(2);
    for (const [i, d] of devices.entries()) expect(d.shellSessions - sessions[i]!).toBeLessThanOrEqual(2);
    expect(newLines.filter((l) => l.level === 'warn' || l.level === 'error').length).toBeLessThanOrEqual(4);
    expect(newLines.length).toBeLessThanOrEqual(15);

    // It keeps reconnecting. Not counted in the 6 s: on a loaded host the first report comes late, and the wait has
    // grown toward its 10-s cap (5 to 10 s with its jitter) by then.
    await waitFor(() => cutter.trackers - trackers >= 3, 60_000, '3 reconnects');

    // Tracking works again once the connections hold: a plug is reported.
    cutter.cutting = false;
    cutter.cutOpen();
    await bed.plug('FLAP0003');
    const put = await bed.cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'FLAP0003'), 30_000);
    expect(
      devicesOf(put)
        .map((d) => d.udid)
        .sort(),
    ).toEqual(['FLAP0001', 'FLAP0002', 'FLAP0003']);
    expect(agent.child.exitCode).toBeNull();
    console.log(JSON.stringify({ reconnects, puts: puts.length, sessions: devices.map((d, i) => d.shellSessions - sessions[i]!), lines: newLines.length }));
  }, 150_000);
});

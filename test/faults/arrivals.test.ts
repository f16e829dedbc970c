import { beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { SimFarm } from '../sim/farm.js';
import { agentOnFarm } from '../support/farm-agent.js';
import { devicesOf } from '../support/reports.js';
import { sleep } from '../support/wait.js';

// A hub tree switched on: N phones arrive over about 48 s behind the real adb
// server while the daemon runs (issue 36, finding 1). Device changes were
// outside the report gap: 300 phones made 59 PUT /devices in 119 s, each with
// the whole host. Every report, device changes included, now keeps the 5 s
// gap: at most 12 in any 60 s (docs/design/fleet.md), and all N are
// reported in full once they are in. DEVICE_AGENT_TEST_ARRIVALS sets N
// (default 300).

const N = Number(process.env.DEVICE_AGENT_TEST_ARRIVALS ?? 300);
const SPREAD_MS = 48_000;
const farm = new SimFarm({ count: 0, profile: 'pixel-8-pro', serialPrefix: 'ARRIVE', connectConcurrency: 8 });
const cloud = new CloudDouble();
const run = agentOnFarm(farm, cloud, {}, { stopMs: 120_000 });
beforeAll(() => cloud.waitForPut((r) => r.answer?.status === 200, 60_000), 90_000);

describe('faults: a burst of arrivals', () => {
  it(`${N} phones arriving over ${SPREAD_MS / 1000} s: at most 12 reports in any 60 s, then all ${N} in full`, async () => {
    const from = Date.now();
    // Plugged at a steady pace, each one not waiting for the others (a hub tree powering its ports).
    const plugs: Array<Promise<unknown>> = [];
    for (let i = 0; i < N; i++) {
      plugs.push(farm.add());
      await sleep(SPREAD_MS / N);
    }
    await Promise.all(plugs);
    const pluggedAt = Date.now();
    const serials = new Set(farm.serialNumbers);
    const allIn = (r: RecordedRequest) =>
      r.receivedAt > from && devicesOf(r).filter((d) => serials.has(d.udid) && d.state === 'device' && d.modelName !== undefined).length === N;
    const full = await cloud.waitForPut((r) => r.answer?.status === 200 && allIn(r), 180_000);
    const puts = cloud
      .putRequests()
      .filter((r) => r.receivedAt > from && r.receivedAt <= full.receivedAt)
      .map((r) => r.receivedAt);
    const busiest = Math.max(...puts.map((t) => puts.filter((u) => u >= t && u < t + 60_000).length));
    console.log(
      `${N} arrivals: plugged in ${((pluggedAt - from) / 1000).toFixed(1)} s; ${puts.length} reports until all were in full ` +
        `${((full.receivedAt - from) / 1000).toFixed(1)} s after the first plug; the busiest 60 s had ${busiest}`,
    );
    expect(busiest).toBeLessThanOrEqual(12);
    // Progress: once the last phone is plugged, the report that has every one in full is not far behind.
    expect(full.receivedAt - pluggedAt).toBeLessThan(120_000);
    expect(run.agent.child.exitCode).toBeNull();
  }, 420_000);
});

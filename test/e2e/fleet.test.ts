import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';
import { AgentProcess, daemonEnv, startAgent } from './agent-process.js';

// Issue 23's fleet bounds with real agents: 16 `device-agent run` processes
// restarted together, a report every 6 s with 2 s of jitter, in two fleets of
// 8, each against its own cloud double. Fleet A lives through a 503 outage of
// two periods, fleet B through a 429 with Retry-After longer than a period.
// (test/timing/fleet.test.ts shows the same bounds on 1,000 simulated agents
// at the default settings.)

const PERIOD = 6_000;
const JITTER = 2_000;
const adb = new AdbServer();
const fleets = { a: new CloudDouble(), b: new CloudDouble() };
const agents: Array<{ fleet: 'a' | 'b'; nodeId: string; process: AgentProcess }> = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const nodeOf = (r: RecordedRequest): string => String((r.body as { nodeId?: string } | undefined)?.nodeId);
const putsOf = (fleet: 'a' | 'b', nodeId: string): RecordedRequest[] => fleets[fleet].putRequests().filter((r) => nodeOf(r) === nodeId);
/** The most PUTs within any 1 s. */
const busiestSecond = (puts: readonly RecordedRequest[]): number => {
  const at = puts.map((p) => p.receivedAt).sort((x, y) => x - y);
  let best = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i]! - at[j]! >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
};

beforeAll(async () => {
  await adb.start();
  await fleets.a.start();
  await fleets.b.start();
  for (const fleet of ['a', 'b'] as const) {
    for (let i = 1; i <= 8; i++) {
      const nodeId = `lab-${fleet}-${String(i).padStart(2, '0')}`;
      const env = daemonEnv(adb.env, fleets[fleet], {
        DEVICE_AGENT_NODE_ID: nodeId,
        DEVICE_AGENT_SCHEDULE: '*/6 * * * * *',
        DEVICE_AGENT_JITTER_SECONDS: String(JITTER / 1000),
        DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '2',
      });
      agents.push({ fleet, nodeId, process: startAgent(['run'], env) });
    }
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.process.stop('SIGKILL').catch(() => undefined)));
  await fleets.a.stop();
  await fleets.b.stop();
  await adb.stop();
});

describe('a fleet of 16 agent processes', () => {
  it('spreads its reports over the period, keeps an outage and a Retry-After cheap, and comes back within 2 periods', async () => {
    const t0 = Date.now();
    // ---- the start: each first report within the jitter of its agent's start, not all at once ----
    const startDelays: number[] = [];
    for (const a of agents) {
      const started = await a.process.waitForLog((l) => l.msg === 'device-agent started', 30_000);
      const first = await fleets[a.fleet].waitForPut((r) => nodeOf(r) === a.nodeId, 30_000);
      startDelays.push(first.receivedAt - Date.parse(String(started.time)));
    }
    for (const d of startDelays) expect(d).toBeLessThan(JITTER + 1_500);
    // Before: every first report within a few hundred ms of its start.
    expect(startDelays.filter((d) => d >= 1_000).length).toBeGreaterThanOrEqual(3);

    // ---- two normal periods: the scheduled reports cover the period ----
    const normalFrom = Date.now();
    const startedIn = (normalFrom - t0) / 1000;
    await sleep(2 * PERIOD + 500);
    const normalTo = Date.now();
    const normal = [...fleets.a.putRequests(), ...fleets.b.putRequests()].filter((r) => r.receivedAt >= normalFrom && r.receivedAt < normalTo);
    expect(normal.length).toBeGreaterThanOrEqual(16);
    const offsets = normal.map((r) => r.receivedAt % PERIOD);
    const buckets = new Set(offsets.map((o) => Math.floor(o / 1000)));
    // Before: all in the first 2 s (the jitter) of each period, plus latency.
    expect(buckets.size).toBeGreaterThanOrEqual(4);
    const inFirstJitter = offsets.filter((o) => o < JITTER + 500).length / offsets.length;
    expect(inFirstJitter).toBeLessThan(0.8);
    const busiestNormalA = busiestSecond(normal.filter((r) => nodeOf(r).startsWith('lab-a')));

    // ---- fleet A: the cloud answers 503 for two periods; fleet B: 429 with Retry-After 9 s for a period and its jitter ----
    const outageFrom = Date.now();
    fleets.a.failNext({ status: 503, times: Infinity, method: 'PUT' });
    fleets.b.failNext({ status: 429, retryAfter: 9, times: Infinity, method: 'PUT' });
    await sleep(PERIOD + JITTER + 500);
    fleets.b.resetFaults();
    await sleep(2 * PERIOD + 500 - (Date.now() - outageFrom));
    fleets.a.resetFaults();
    const backAt = Date.now();
    const outageMs = backAt - outageFrom;

    // Fleet A during the outage: one attempt per scheduled report (before: a chain of up to 6 per report, and resends).
    const fleetA = agents.filter((a) => a.fleet === 'a');
    const attempts = fleetA.map((a) => putsOf('a', a.nodeId).filter((r) => r.receivedAt >= outageFrom && r.receivedAt < backAt).length);
    const perPeriod = attempts.reduce((x, y) => x + y, 0) / fleetA.length / (outageMs / PERIOD);
    expect(perPeriod).toBeLessThanOrEqual(1.34);
    expect(Math.max(...attempts)).toBeLessThanOrEqual(Math.ceil(outageMs / (PERIOD - JITTER)));

    // Fleet B: after each 429, nothing from that agent for 9 s (before: resent after 5 s, or at the next tick).
    const fleetB = agents.filter((a) => a.fleet === 'b');
    let told = 0;
    for (const a of fleetB) {
      const puts = putsOf('b', a.nodeId);
      puts.forEach((p, k) => {
        if (p.answer?.status !== 429) return;
        told++;
        const next = puts[k + 1];
        if (next) expect(next.receivedAt - p.receivedAt).toBeGreaterThanOrEqual(9_000);
      });
    }
    expect(told).toBeGreaterThanOrEqual(fleetB.length);

    // ---- fleet A back: every agent delivers within 2 periods, with its scheduled report ----
    for (const a of fleetA) {
      const back = await fleets.a.waitForPut((r) => nodeOf(r) === a.nodeId && r.receivedAt >= backAt && r.answer?.status === 200, 3 * PERIOD);
      expect(back.receivedAt - backAt).toBeLessThanOrEqual(2 * PERIOD);
      const line = await a.process.waitForLog((l) => l.msg === 'report delivered' && Date.parse(String(l.time)) >= backAt, 5_000);
      expect(line.reason).toBe('schedule');
    }
    await sleep(Math.max(0, backAt + 2 * PERIOD - Date.now()));
    const after = fleets.a.putRequests().filter((r) => r.receivedAt >= backAt && r.receivedAt < backAt + 2 * PERIOD);
    // The same scheduled reports as in a normal period (1 more for the timer noise of 16 processes on a shared machine).
    expect(busiestSecond(after)).toBeLessThanOrEqual(busiestNormalA + 1);
    // Fleet B came back at its own times: not all in one second.
    const bBack = fleetB.map((a) => putsOf('b', a.nodeId).find((r) => r.answer?.status === 200 && r.receivedAt >= outageFrom)!);
    expect(bBack.every((r) => r !== undefined)).toBe(true);
    expect(busiestSecond(bBack)).toBeLessThan(fleetB.length);
    for (const a of agents) expect(a.process.child.exitCode).toBeNull();
    console.log(JSON.stringify({ startDelays, offsetBuckets: buckets.size, inFirstJitter, attempts, perPeriod, told, busiestNormalA, busiestAfter: busiestSecond(after), startedIn, seconds: (Date.now() - t0) / 1000 }));
  }, 120_000);
});

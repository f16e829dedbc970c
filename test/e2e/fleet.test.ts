import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';
import { type AgentProcess, daemonEnv, startAgent } from './agent-process.js';
import { sleep } from '../support/wait.js';

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

describe('a fleet of 16 agent processes (one run, in steps)', () => {
  let normalA: RecordedRequest[] = [];
  let outageFrom = 0;
  let backAt = 0;
  const figures: Record<string, unknown> = {};

  it('spreads the first reports of a fleet restarted together over the jitter', async () => {
    const spreads: number[] = [];
    for (const a of agents) {
      await fleets[a.fleet].waitForPut((r) => nodeOf(r) === a.nodeId, 30_000);
      const started = Date.parse(String((await a.process.waitForLog((l) => l.msg === 'device-agent started', 30_000)).time));
      const first = await a.process.waitForLog((l) => l.msg === 'report delivered', 30_000);
      // When the report began, collecting included: a scheduled run that came first carries the start.
      if (String(first.reason).includes('start')) spreads.push(Date.parse(String(first.time)) - Number(first.ms) - started);
    }
    figures.startSpreads = spreads;
    for (const d of spreads) expect(d).toBeLessThan(JITTER + 500);
    // Before: each began within a few ms of its start.
    expect(spreads.filter((d) => d >= 500).length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...spreads) - Math.min(...spreads)).toBeGreaterThanOrEqual(1_000);
  }, 60_000);

  it('spreads the scheduled reports over the whole period', async () => {
    const from = Date.now();
    await sleep(2 * PERIOD + 500);
    const normal = [...fleets.a.putRequests(), ...fleets.b.putRequests()].filter((r) => r.receivedAt >= from);
    normalA = normal.filter((r) => nodeOf(r).startsWith('lab-a'));
    expect(normal.length).toBeGreaterThanOrEqual(16);
    const offsets = normal.map((r) => r.receivedAt % PERIOD);
    const buckets = new Set(offsets.map((o) => Math.floor(o / 1000)));
    const inFirstJitter = offsets.filter((o) => o < JITTER + 500).length / offsets.length;
    Object.assign(figures, { offsetBuckets: buckets.size, inFirstJitter });
    // Before: all in the first 2 s (the jitter) of each period, plus latency.
    expect(buckets.size).toBeGreaterThanOrEqual(4);
    expect(inFirstJitter).toBeLessThan(0.8);
  }, 30_000);

  it('during a 503 outage of two periods makes one attempt per scheduled report; a 429 with Retry-After keeps each agent quiet that long', async () => {
    // Fleet A: 503 on every PUT for two periods; fleet B: 429 with Retry-After 9 s for a period and its jitter.
    outageFrom = Date.now();
    fleets.a.failNext({ status: 503, times: Infinity, method: 'PUT' });
    fleets.b.failNext({ status: 429, retryAfter: 9, times: Infinity, method: 'PUT' });
    await sleep(PERIOD + JITTER + 500);
    fleets.b.resetFaults();
    await sleep(2 * PERIOD + 500 - (Date.now() - outageFrom));
    fleets.a.resetFaults();
    backAt = Date.now();
    const outageMs = backAt - outageFrom;

    // Fleet A: one attempt per scheduled report (before: a chain of up to 6 per report, and resends).
    const attempts = agents
      .filter((a) => a.fleet === 'a')
      .map((a) => putsOf('a', a.nodeId).filter((r) => r.receivedAt >= outageFrom && r.receivedAt < backAt).length);
    const perPeriod = attempts.reduce((x, y) => x + y, 0) / attempts.length / (outageMs / PERIOD);
    Object.assign(figures, { attempts, perPeriod });
    expect(perPeriod).toBeLessThanOrEqual(1.34);
    expect(Math.max(...attempts)).toBeLessThanOrEqual(Math.ceil(outageMs / (PERIOD - JITTER)));

    // Fleet B: every agent was told to wait (its next PUT is checked once it has come, below).
    const told = agents.filter((x) => x.fleet === 'b').map((a) => putsOf('b', a.nodeId).filter((p) => p.answer?.status === 429).length);
    Object.assign(figures, { told });
    for (const n of told) expect(n).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('after the outage, every agent delivers within 2 periods with its scheduled report, no second busier than before; after the Retry-After, each came back no sooner', async () => {
    const fleetA = agents.filter((a) => a.fleet === 'a');
    const delays: number[] = [];
    for (const a of fleetA) {
      const back = await fleets.a.waitForPut((r) => nodeOf(r) === a.nodeId && r.receivedAt >= backAt && r.answer?.status === 200, 3 * PERIOD);
      delays.push(back.receivedAt - backAt);
      const line = await a.process.waitForLog((l) => l.msg === 'report delivered' && Date.parse(String(l.time)) >= backAt, 5_000);
      expect(line.reason).toBe('schedule');
    }
    for (const d of delays) expect(d).toBeLessThanOrEqual(2 * PERIOD);
    await sleep(Math.max(0, backAt + 2 * PERIOD - Date.now()));
    const after = fleets.a.putRequests().filter((r) => r.receivedAt >= backAt && r.receivedAt < backAt + 2 * PERIOD);
    Object.assign(figures, { backDelays: delays, busiestNormalA: busiestSecond(normalA), busiestAfter: busiestSecond(after) });
    // The same scheduled reports as in a normal period (1 more for the timer noise of 16 processes on a shared machine).
    expect(busiestSecond(after)).toBeLessThanOrEqual(busiestSecond(normalA) + 1);
    // Fleet B: after each 429, nothing from that agent for 9 s (before: resent after 5 s, or at its next tick),
    // and back at its own times, not all in one second.
    const quiet: number[] = [];
    const bBack: RecordedRequest[] = [];
    for (const a of agents.filter((x) => x.fleet === 'b')) {
      bBack.push(await fleets.b.waitForPut((r) => nodeOf(r) === a.nodeId && r.receivedAt >= outageFrom && r.answer?.status === 200, 4 * PERIOD));
      const puts = putsOf('b', a.nodeId);
      puts.forEach((p, k) => {
        if (p.answer?.status === 429 && puts[k + 1]) quiet.push(puts[k + 1]!.receivedAt - p.receivedAt);
      });
    }
    Object.assign(figures, { quiet });
    expect(quiet.length).toBeGreaterThanOrEqual(8);
    for (const q of quiet) expect(q).toBeGreaterThanOrEqual(9_000);
    expect(busiestSecond(bBack)).toBeLessThan(bBack.length);
    for (const a of agents) expect(a.process.child.exitCode).toBeNull();
    console.log(JSON.stringify(figures));
  }, 40_000);
});

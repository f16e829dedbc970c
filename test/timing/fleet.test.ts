import { describe, expect, it } from 'vitest';
import { perSecond, simulateFleet, type Attempt, type CloudAnswer } from './fleet.js';

// Issue 23's four fleet bounds, shown on 1,000 agents (the real Scheduler and
// ReportPlanner of each, default settings: a report a minute, 10 s of
// jitter) restarted together against one cloud, on a virtual clock. The
// figures are printed (docs/design/fleet.md names the bounds).

const AGENTS = 1_000;
const MIN = 60_000;
const OUTAGE_FROM = 5 * MIN;

const up = (): CloudAnswer => ({ kind: 'ok' });
const downBetween =
  (from: number, to: number, answer: CloudAnswer = { kind: 'transient' }) =>
  (t: number): CloudAnswer =>
    t >= from && t < to ? answer : { kind: 'ok' };

const max = (xs: readonly number[]): number => xs.reduce((a, b) => Math.max(a, b), 0);
const figures: Record<string, unknown> = {};

// The fleet with the cloud up all along: the normal periods every bound is measured against.
const baseline = simulateFleet({ agents: AGENTS, horizonMs: 25 * MIN, cloud: up });
/** The busiest second of the normal periods (after the start's first two minutes). */
const busiestNormal = max(perSecond(baseline.attempts, 2 * MIN, 25 * MIN));

describe(`a fleet of ${AGENTS} agents`, () => {
  it('spreads its periodic reports over the whole period, and the first reports of a fleet restarted together over 10 s', () => {
    const normal = perSecond(baseline.attempts, 2 * MIN, 25 * MIN);
    const mean = normal.reduce((a, b) => a + b, 0) / normal.length;
    // By second of the minute: before, every report fell in its first 10 s.
    const byMinuteSecond = new Array<number>(60).fill(0);
    normal.forEach((n, k) => (byMinuteSecond[k % 60]! += n));
    const tenSecondShare =
      Math.max(...byMinuteSecond.map((_, s) => [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].reduce((sum, d) => sum + byMinuteSecond[(s + d) % 60]!, 0))) /
      (mean * normal.length);
    expect(Math.min(...byMinuteSecond)).toBeGreaterThan(0);
    expect(tenSecondShare).toBeLessThan(0.25);
    expect(busiestNormal).toBeLessThan(2 * mean);

    // The first reports: each within 10 s (plus collecting) of the start (a
    // scheduled run that comes first carries it), none of the seconds with more than an eighth of them.
    const starts = [...groupByAgent(baseline.attempts).values()].map((list) => list[0]!);
    expect(starts).toHaveLength(AGENTS);
    expect(max(starts.map((a) => a.at))).toBeLessThan(10_000 + 1_000);
    const startPeak = max(perSecond(starts, 0, 11_000));
    expect(startPeak).toBeLessThan(0.15 * AGENTS);
    expect(max(starts.map((a) => a.at)) - Math.min(...starts.map((a) => a.at))).toBeGreaterThan(9_000);
    Object.assign(figures, {
      meanPerSecond: mean,
      busiestNormal,
      tenSecondShare,
      startPeak,
      startSpan: max(starts.map((a) => a.at)) - Math.min(...starts.map((a) => a.at)),
    });
  });

  for (const outageMs of [30_000, 5 * MIN, 20 * MIN]) {
    it(`during a ${outageMs / 1000} s outage makes at most 3 attempts per agent per minute, and after it every agent delivers within 2 periods, no second busier than normal`, () => {
      const to = OUTAGE_FROM + outageMs;
      const { attempts, periodMs } = simulateFleet({ agents: AGENTS, horizonMs: to + 3 * periodMsOf(), cloud: downBetween(OUTAGE_FROM, to) });
      const during = attempts.filter((a) => a.at >= OUTAGE_FROM && a.at < to);
      const perAgentPerMinute = during.length / AGENTS / (outageMs / MIN);
      // Any agent, any 60 s of the outage.
      const byAgent = groupByAgent(during);
      let worstMinute = 0;
      for (const list of byAgent.values()) {
        for (let k = 0; k < list.length; k++) worstMinute = Math.max(worstMinute, list.filter((a) => a.at >= list[k]!.at && a.at < list[k]!.at + MIN).length);
      }
      expect(perAgentPerMinute).toBeLessThanOrEqual(3);
      expect(worstMinute).toBeLessThanOrEqual(3);

      // Back: every agent delivers within two periods.
      const delivered = new Map<number, number>();
      for (const a of attempts) if (a.at >= to && a.answer.kind === 'ok' && !delivered.has(a.agent)) delivered.set(a.agent, a.at);
      expect(delivered.size).toBe(AGENTS);
      const slowest = max([...delivered.values()].map((at) => at - to));
      expect(slowest).toBeLessThanOrEqual(2 * periodMs);
      const busiestAfter = max(perSecond(attempts, to, to + 2 * periodMs));
      expect(busiestAfter).toBeLessThanOrEqual(busiestNormal);
      figures[`outage ${outageMs / 1000} s`] = { perAgentPerMinute, worstMinute, slowestDeliverySeconds: slowest / 1000, busiestAfter, busiestNormal };
    });
  }

  for (const [status, retryAfterMs] of [
    [429, 30_000],
    [503, 90_000],
  ] as const) {
    it(`takes Retry-After (${status}, ${retryAfterMs / 1000} s) as a time before which no report goes, scheduled ones included, and comes back spread`, () => {
      // Every PUT of a whole period (and its jitter) is answered so; then the cloud takes reports again.
      const to = OUTAGE_FROM + MIN + 10_000;
      const { attempts } = simulateFleet({
        agents: AGENTS,
        horizonMs: to + retryAfterMs + 3 * MIN,
        cloud: downBetween(OUTAGE_FROM, to, { kind: 'transient', retryAfterMs }),
      });
      let told = 0;
      let earliestBack = Infinity;
      for (const list of groupByAgent(attempts).values()) {
        list.forEach((a, k) => {
          if (a.answer.kind !== 'transient') return;
          told++;
          const next = list[k + 1];
          if (next) earliestBack = Math.min(earliestBack, next.at - a.at);
        });
      }
      expect(told).toBeGreaterThanOrEqual(AGENTS);
      expect(earliestBack).toBeGreaterThanOrEqual(retryAfterMs);
      const busiestAfter = max(perSecond(attempts, to, to + retryAfterMs + 2 * MIN));
      expect(busiestAfter).toBeLessThanOrEqual(busiestNormal);
      figures[`Retry-After ${retryAfterMs / 1000} s`] = { told, earliestBackSeconds: earliestBack / 1000, busiestAfter, busiestNormal };
    });
  }

  it('coalesces a burst of 300 arrivals and 300 departures on every host: at most 12 PUTs and the schedule ticks in any 60 s per agent, every change reported within 5 s of the report in flight, a lone plug on a quiet host within 2 s', () => {
    // Every host's hub tree switched on at 2 min (300 phones over 48 s), off at 5 min, then one phone plugged at 8 min.
    const PHONES = 300;
    const serials = Array.from({ length: PHONES }, (_, k) => `P${k}`);
    const listings: Array<{ at: number; serials: string[] }> = [];
    for (let k = 1; k <= PHONES; k++) listings.push({ at: 2 * MIN + k * 160, serials: serials.slice(0, k) });
    for (let k = 1; k <= PHONES; k++) listings.push({ at: 5 * MIN + k * 160, serials: serials.slice(k) });
    const lonePlug = 8 * MIN;
    listings.push({ at: lonePlug, serials: ['LONE'] });
    const agents = 50;
    const { attempts } = simulateFleet({ agents, horizonMs: 10 * MIN, cloud: up, listings: () => listings });
    let worstMinute = 0;
    let slowestChange = 0;
    let quietHosts = 0;
    let slowestLone = 0;
    for (const list of groupByAgent(attempts).values()) {
      for (let k = 0; k < list.length; k++) worstMinute = Math.max(worstMinute, list.filter((a) => a.at >= list[k]!.at && a.at < list[k]!.at + MIN).length);
      // Progress: the first report planned after each change (collecting 0.3-1 s, the answer 50 ms, then a token of the report budget).
      for (const change of listings) {
        const covering = list.find((a) => a.startedAt >= change.at);
        slowestChange = Math.max(slowestChange, (covering?.startedAt ?? Infinity) - change.at);
      }
      // The lone plug, on a host with no report ending in the 5 s before it (its PUT is answered 50 ms after it arrives).
      if (list.some((a) => a.startedAt <= lonePlug && a.at + 50 > lonePlug - 5_000)) continue;
      quietHosts++;
      slowestLone = Math.max(slowestLone, list.find((a) => a.startedAt >= lonePlug)!.startedAt - lonePlug);
    }
    // 12 gapped reports and the schedule's own (a minute apart, give or take 10 s of jitter).
    expect(worstMinute).toBeLessThanOrEqual(14);
    expect(slowestChange).toBeLessThanOrEqual(5_000 + 1_050);
    expect(quietHosts).toBeGreaterThan(agents / 2);
    expect(slowestLone).toBeLessThanOrEqual(2_000);
    figures['bursts of 300 arrivals and departures'] = {
      agents,
      worstMinute,
      slowestChangeSeconds: slowestChange / 1000,
      quietHosts,
      slowestLoneSeconds: slowestLone / 1000,
    };
  });

  it('prints the figures', () => {
    console.log(JSON.stringify(figures, null, 2));
  });
});

function periodMsOf(): number {
  return baseline.periodMs;
}

function groupByAgent(attempts: readonly Attempt[]): Map<number, Attempt[]> {
  const byAgent = new Map<number, Attempt[]>();
  for (const a of attempts) {
    const list = byAgent.get(a.agent) ?? [];
    list.push(a);
    byAgent.set(a.agent, list);
  }
  return byAgent;
}

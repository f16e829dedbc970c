import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../support/virtual-time.js';
import { reportBed } from './bed.js';

// A fleet of report paths on one virtual time line: 16 hosts' real report
// loops (the Scheduler, ReportPlanner and report run as the daemon wires
// them, the reporter and registry between an in-memory source and cloud),
// restarted together, a report every 6 s with 2 s of jitter, each host its
// own node id and random source. The fleet's bounds (docs/design/fleet.md)
// on the daemon's own wiring of its settings; test/timing/fleet.test.ts shows
// them on 1,000 agents at the default settings. The real processes' seam (the
// schedule, the 503 backoff and Retry-After over HTTP) is the e2e tier's:
// test/e2e/run.test.ts and test/faults/cloud.test.ts.

const PERIOD = 6_000;
const JITTER = 2_000;

function fleet(size: number, name: string) {
  const time = new VirtualTime();
  const hosts = Array.from({ length: size }, (_, i) => {
    const nodeId = `lab-${name}-${String(i + 1).padStart(2, '0')}`;
    const bed = reportBed({ time, nodeId, seed: i + 1, schedule: '*/6 * * * * *', jitterSeconds: JITTER / 1000 });
    bed.source.list([`${nodeId}-P1`]);
    return bed;
  });
  for (const h of hosts) h.loop.start();
  /** Every host's PUT times, kept or not. */
  const attempts = () => hosts.map((h) => [...h.cloud.attempts]);
  return { time, hosts, advance: (ms: number) => hosts[0]!.advance(ms), attempts };
}

/** The most of these times within any 1 s. */
function busiestSecond(times: readonly number[]): number {
  const at = [...times].sort((x, y) => x - y);
  let best = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i]! - at[j]! >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('a fleet of 16 report loops restarted together (6 s period, 2 s jitter)', () => {
  it('spreads the first reports over the jitter', async () => {
    const f = fleet(16, 'a');
    await f.advance(JITTER + 500);
    const firsts = f.attempts().map((a) => a[0]);
    expect(firsts.every((t) => t !== undefined && t <= JITTER)).toBe(true);
    // Not all at the start: a jitter of 0 (or a spread not wired from it) sends all 16 at once.
    expect(firsts.filter((t) => t! >= 500).length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...(firsts as number[])) - Math.min(...(firsts as number[]))).toBeGreaterThanOrEqual(1_000);
  });

  it('spreads the scheduled reports over the whole period, each host at its own offset', async () => {
    const f = fleet(16, 'a');
    await f.advance(PERIOD + JITTER);
    const from = f.time.now;
    await f.advance(2 * PERIOD);
    const normal = f.attempts().flatMap((a) => a.filter((t) => t >= from));
    expect(normal.length).toBeGreaterThanOrEqual(16);
    // The time line starts on a whole minute, so a time's place in the period is the time modulo the period.
    const offsets = normal.map((t) => t % PERIOD);
    expect(new Set(offsets.map((o) => Math.floor(o / 1000))).size).toBeGreaterThanOrEqual(4);
    expect(offsets.filter((o) => o < JITTER + 500).length / offsets.length).toBeLessThan(0.8);
  });

  it('during a 503 outage of two periods makes one attempt per scheduled report, and after it every host delivers within 2 periods, no second busier than before', async () => {
    const f = fleet(8, 'a');
    await f.advance(PERIOD + JITTER);
    const normalFrom = f.time.now;
    await f.advance(2 * PERIOD);
    const busiestNormal = busiestSecond(f.attempts().flatMap((a) => a.filter((t) => t >= normalFrom)));
    const outageFrom = f.time.now;
    for (const h of f.hosts) h.cloud.failing = true;
    await f.advance(2 * PERIOD + 500);
    for (const h of f.hosts) h.cloud.failing = false;
    const backAt = f.time.now;
    const outageMs = backAt - outageFrom;
    const during = f.attempts().map((a) => a.filter((t) => t >= outageFrom && t < backAt).length);
    expect(during.reduce((x, y) => x + y, 0) / during.length / (outageMs / PERIOD)).toBeLessThanOrEqual(1.34);
    expect(Math.max(...during)).toBeLessThanOrEqual(Math.ceil(outageMs / (PERIOD - JITTER)));

    await f.advance(2 * PERIOD);
    for (const h of f.hosts) {
      const back = h.cloud.bodies.find((b) => b.at >= backAt && b.delivered);
      expect(back, 'delivered after the outage').toBeDefined();
      expect(back!.at - backAt).toBeLessThanOrEqual(2 * PERIOD);
    }
    const after = f.attempts().flatMap((a) => a.filter((t) => t >= backAt && t < backAt + 2 * PERIOD));
    expect(busiestSecond(after)).toBeLessThanOrEqual(busiestNormal);
  });

  it('a 429 with Retry-After keeps each host quiet that long, and they come back at their own times', async () => {
    const f = fleet(8, 'b');
    await f.advance(PERIOD + JITTER);
    const from = f.time.now;
    for (const h of f.hosts) {
      h.cloud.failing = true;
      h.cloud.retryAfterMs = 9_000;
    }
    await f.advance(PERIOD + JITTER + 500);
    for (const h of f.hosts) h.cloud.failing = false;
    await f.advance(4 * PERIOD);
    const quiet: number[] = [];
    const back: number[] = [];
    for (const h of f.hosts) {
      const told = h.cloud.bodies.filter((b) => b.at >= from && !b.delivered);
      expect(told.length, 'each host was told to wait').toBeGreaterThanOrEqual(1);
      for (const t of told) {
        const next = h.cloud.attempts.find((a) => a > t.at);
        if (next !== undefined) quiet.push(next - t.at);
      }
      back.push(h.cloud.bodies.find((b) => b.at >= from && b.delivered)!.at);
    }
    expect(quiet.length).toBeGreaterThanOrEqual(8);
    for (const q of quiet) expect(q).toBeGreaterThanOrEqual(9_000);
    expect(busiestSecond(back)).toBeLessThan(back.length);
  });
});

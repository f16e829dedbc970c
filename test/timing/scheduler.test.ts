import { beforeEach, describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/timing/scheduler.js';
import { MAX_SPREAD_MS, nodePhase } from '../../src/timing/spread.js';
import { silentLogger } from '../../src/log/logger.js';
import { VirtualTime, type VirtualClock } from '../support/virtual-time.js';

// The timer shell around src/timing/cron.ts and src/timing/spread.ts, on a
// virtual clock: wall time, monotonic time, timers and jitter all come from
// it, and stepWall() plays a wall clock step.

const START = Date.UTC(2026, 10, 22, 12, 0, 0, 250);
const MINUTE = Date.UTC(2026, 10, 22, 12, 0, 0);
const warnings: string[] = [];
const logger = { ...silentLogger(), warn: (_o: unknown, m?: string) => void warnings.push(String(m)) } as unknown as ReturnType<typeof silentLogger>;

function scheduler(expression: string, options: { jitterMs?: number; nodeId?: string; clock?: VirtualClock; time?: VirtualTime } = {}) {
  const time = options.time ?? new VirtualTime(START);
  const clock = options.clock ?? time.clock({ seed: 7 });
  const ticks: number[] = [];
  const s = new Scheduler({
    expression,
    jitterMs: options.jitterMs ?? 0,
    nodeId: options.nodeId ?? 'lab-host-01',
    onTick: () => ticks.push(clock.wall()),
    logger,
    clock,
  });
  return { s, ticks, time, clock };
}

beforeEach(() => {
  process.env.TZ = 'UTC';
  warnings.length = 0;
});

describe('Scheduler', () => {
  it("runs once for each time the expression names, at this host's own offset into the period", async () => {
    const { s, ticks, time } = scheduler('*/10 * * * * *', { nodeId: 'lab-host-01' });
    s.start();
    const offset = nodePhase('lab-host-01') * 10_000;
    expect(s.nextRunAt()).toBe(MINUTE + (offset > 250 ? 0 : 10_000) + offset);
    time.advance(60_000);
    const expected = [0, 10, 20, 30, 40, 50, 60].map((k) => MINUTE + k * 1000 + offset).filter((t) => t > START && t <= START + 60_000);
    expect(ticks).toEqual(expected);
    s.stop();
    time.advance(60_000);
    expect(ticks).toEqual(expected);
    expect(s.nextRunAt()).toBeUndefined();
    // Another host, another place in the period.
    const other = scheduler('*/10 * * * * *', { nodeId: 'lab-host-02' });
    other.s.start();
    other.time.advance(60_000);
    expect(other.ticks[0]! % 10_000).not.toBe(ticks[0]! % 10_000);
    other.s.stop();
  });

  it("spreads a fleet's runs over the whole period; each host's runs stay a period apart, give or take the jitter", async () => {
    const time = new VirtualTime(START);
    const hosts = Array.from({ length: 300 }, (_, i) =>
      scheduler('* * * * *', { jitterMs: 10_000, nodeId: `lab-host-${i}`, time, clock: time.clock({ seed: i + 1 }) }),
    );
    for (const h of hosts) h.s.start();
    time.advance(10 * 60_000);
    const perSecond = new Array<number>(60).fill(0);
    for (const h of hosts) {
      expect(h.ticks.length).toBeGreaterThanOrEqual(9);
      for (const t of h.ticks) perSecond[Math.floor((t % 60_000) / 1000)]!++;
      for (let k = 1; k < h.ticks.length; k++) {
        const gap = h.ticks[k]! - h.ticks[k - 1]!;
        expect(gap).toBeGreaterThanOrEqual(50_000);
        expect(gap).toBeLessThanOrEqual(70_000);
      }
    }
    // Before: every run in the first 10 s of the minute. Now each second of it has some.
    expect(Math.min(...perSecond)).toBeGreaterThan(0);
    const all = perSecond.reduce((a, b) => a + b, 0);
    expect(Math.max(...perSecond)).toBeLessThan((all / 60) * 2.5);
    for (const h of hosts) h.s.stop();
  });

  it('keeps a long period spread within 15 minutes of its time, waiting in pieces', async () => {
    const { s, ticks, time } = scheduler('0 3 * * *', { nodeId: 'lab-host-07' });
    s.start();
    expect(time.pending).toBe(2);
    time.advance(24 * 3_600_000);
    expect(ticks).toHaveLength(1);
    const offset = ticks[0]! - Date.UTC(2026, 10, 23, 3, 0, 0);
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(MAX_SPREAD_MS);
    expect(offset).toBeCloseTo(nodePhase('lab-host-07') * MAX_SPREAD_MS, 3);
    s.stop();
  });

  it('draws the random part under the jitter afresh for each run', async () => {
    const { s, ticks, time } = scheduler('* * * * *', { jitterMs: 20_000 });
    s.start();
    time.advance(20 * 60_000);
    // Past this host's own offset into the minute, by less than the jitter.
    const base = nodePhase('lab-host-01') * 60_000;
    const randomParts = ticks.map((t) => (((t - MINUTE - base) % 60_000) + 60_000) % 60_000);
    for (const r of randomParts) expect(r).toBeLessThan(20_000);
    expect(new Set(randomParts.map((r) => Math.floor(r / 1000))).size).toBeGreaterThan(10);
    expect(ticks.length).toBeGreaterThanOrEqual(19);
    s.stop();
  });

  it('starts afresh after a wall clock step, back or forward, with one line each and no flood', async () => {
    const { s, ticks, time, clock } = scheduler('*/2 * * * * *');
    s.start();
    time.advance(10_000);
    expect(ticks).toHaveLength(5);
    clock.stepWall(-3_600_000);
    time.advance(10_000);
    // Not an hour's wait for the old time to come round.
    expect(ticks.length).toBeGreaterThanOrEqual(9);
    clock.stepWall(7_200_000);
    time.advance(10_000);
    // Not one run for every slot skipped over.
    expect(ticks.length).toBeGreaterThanOrEqual(13);
    expect(ticks.length).toBeLessThanOrEqual(16);
    expect(warnings.filter((w) => w.startsWith('the wall clock stepped'))).toEqual([
      expect.stringMatching(/back by 3(599|600|601) s/),
      expect.stringMatching(/forward by 7(199|200|201) s/),
    ]);
    s.stop();
  });

  it('after the process stalled, runs once for all the times it missed', () => {
    // A paused VM or a blocked event loop: both clocks move on and every
    // timer fires late, once.
    const { s, ticks, time, clock } = scheduler('* * * * * *');
    s.start();
    time.advance(2_000);
    const before = ticks.length;
    time.stall(4_200);
    const resumed = clock.wall();
    time.advance(1_500);
    s.stop();
    // In the 1.5 s after it: the late run, then at most two on time; not four more.
    const after = ticks.filter((t) => t >= resumed && t < resumed + 1_500);
    expect(ticks.slice(0, before).every((t) => t < resumed)).toBe(true);
    expect(after.length).toBeLessThanOrEqual(3);
    expect(after.length).toBeGreaterThanOrEqual(1);
    // The first of them is the late run, at once.
    expect(after[0]).toBe(resumed);
    expect(warnings).toEqual([]);
  });

  it('reads the period from the expression, before start', () => {
    expect(scheduler('* * * * *').s.periodMs()).toBe(60_000);
    expect(scheduler('*/15 * * * * *').s.periodMs()).toBe(15_000);
    expect(scheduler('0 9,17 * * *').s.periodMs()).toBe(16 * 3_600_000);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Scheduler } from '../../src/timing/scheduler.js';
import { silentLogger } from '../../src/log/logger.js';

// The timer shell around src/timing/cron.ts, on vitest's fake clock: Date and
// the timers move together, and setSystemTime alone plays a wall clock step.

const START = Date.UTC(2026, 10, 22, 12, 0, 0, 250);
const warnings: string[] = [];
const logger = { ...silentLogger(), warn: (_o: unknown, m?: string) => void warnings.push(String(m)) } as unknown as ReturnType<typeof silentLogger>;

function scheduler(expression: string, jitterMs = 0) {
  const ticks: number[] = [];
  const s = new Scheduler({ expression, jitterMs, onTick: () => ticks.push(Date.now()), logger });
  return { s, ticks };
}

beforeEach(() => {
  process.env.TZ = 'UTC';
  warnings.length = 0;
  vi.useFakeTimers({ now: START, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
});
afterEach(() => vi.useRealTimers());

describe('Scheduler', () => {
  it('runs once at each time the expression names', async () => {
    const { s, ticks } = scheduler('*/10 * * * * *');
    s.start();
    expect(s.nextRunAt()).toBe(Date.UTC(2026, 10, 22, 12, 0, 10));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks.map((t) => (t - Date.UTC(2026, 10, 22, 12, 0, 0)) / 1000)).toEqual([10, 20, 30, 40, 50, 60]);
    await s.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toHaveLength(6);
    expect(s.nextRunAt()).toBeUndefined();
  });

  it('delays each run by less than the jitter, and a stop drops the delayed ones', async () => {
    const { s, ticks } = scheduler('* * * * *', 20_000);
    s.start();
    await vi.advanceTimersByTimeAsync(10 * 60_000 + 20_000);
    expect(ticks).toHaveLength(10);
    for (const t of ticks) expect(t % 60_000).toBeLessThan(20_000);
    expect(new Set(ticks.map((t) => t % 60_000)).size).toBeGreaterThan(1);
    // The 12:11 run, held for 10 s, is stopped before it goes.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    await vi.advanceTimersByTimeAsync(60_000 - 20_000 - 250 + 5_000);
    await s.stop();
    vi.restoreAllMocks();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toHaveLength(10);
  });

  it('waits for a run a day away in pieces, and runs it on time', async () => {
    const { s, ticks } = scheduler('0 3 * * *');
    s.start();
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(24 * 3_600_000);
    expect(ticks).toEqual([Date.UTC(2026, 10, 23, 3, 0, 0)]);
    await s.stop();
  });

  it('starts afresh after a wall clock step, back or forward, with one line each and no flood', async () => {
    const { s, ticks } = scheduler('*/2 * * * * *');
    s.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ticks).toHaveLength(5);
    vi.setSystemTime(Date.now() - 3_600_000);
    await vi.advanceTimersByTimeAsync(10_000);
    // Not an hour's wait for the old time to come round.
    expect(ticks.length).toBeGreaterThanOrEqual(9);
    vi.setSystemTime(Date.now() + 7_200_000);
    await vi.advanceTimersByTimeAsync(10_000);
    // Not one run for every slot skipped over.
    expect(ticks.length).toBeGreaterThanOrEqual(13);
    expect(ticks.length).toBeLessThanOrEqual(16);
    expect(warnings.filter((w) => w.startsWith('the wall clock stepped'))).toEqual([
      expect.stringMatching(/back by 3(599|600|601) s/),
      expect.stringMatching(/forward by 7(199|200|201) s/),
    ]);
    await s.stop();
  });

  it('after the process stalled, runs once for all the times it missed (real clock)', async () => {
    // A paused VM or a blocked event loop: both clocks move on and every
    // timer fires late, once. Played with a busy loop on the real clocks.
    vi.useRealTimers();
    const { s, ticks } = scheduler('* * * * * *');
    s.start();
    const stallUntil = Date.now() + 4_200;
    while (Date.now() < stallUntil) {
      // The event loop is blocked: four runs come due.
    }
    const resumed = Date.now();
    await new Promise((r) => setTimeout(r, 1_500));
    await s.stop();
    // In the 1.5 s after it: the late run, then at most two on time; not four more.
    const after = ticks.filter((t) => t >= resumed && t < resumed + 1_500);
    expect(after.length).toBeLessThanOrEqual(3);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(warnings).toEqual([]);
  });

  it('reads the period from the expression, before start', () => {
    expect(scheduler('* * * * *').s.periodMs()).toBe(60_000);
    expect(scheduler('*/15 * * * * *').s.periodMs()).toBe(15_000);
    expect(scheduler('0 9,17 * * *').s.periodMs()).toBe(16 * 3_600_000);
  });
});

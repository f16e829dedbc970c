import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualTime } from './virtual-time.js';

describe('VirtualTime', () => {
  it('fires timers in time order, ties in the order they were set, and not the cancelled ones', () => {
    const time = new VirtualTime(0);
    const fired: string[] = [];
    time.schedule(() => fired.push('b@20'), 20);
    time.schedule(() => fired.push('a@10'), 10);
    time.schedule(() => fired.push('c@20'), 20);
    time.schedule(() => fired.push('x@15'), 15).cancel();
    time.schedule(() => time.schedule(() => fired.push('d@25'), 5), 20);
    time.advance(19);
    expect(fired).toEqual(['a@10']);
    expect(time.now).toBe(19);
    time.advance(100);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20', 'd@25']);
    expect(time.now).toBe(119);
    expect(time.pending).toBe(0);
    // Many at one time: still in the order set.
    const order: number[] = [];
    for (let i = 0; i < 50; i++) time.schedule(() => order.push(i), 10);
    time.advance(10);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('in a stall moves both clocks on and fires nothing; the next advance fires what came due, late and in order', () => {
    const time = new VirtualTime(1_000_000);
    const clock = time.clock();
    const fired: Array<[string, number]> = [];
    time.schedule(() => fired.push(['a@100', clock.monotonic()]), 100);
    time.schedule(() => fired.push(['b@300', clock.monotonic()]), 300);
    time.schedule(() => fired.push(['c@5000', clock.monotonic()]), 5_000);
    time.stall(1_000);
    expect(fired).toEqual([]);
    expect(clock.monotonic()).toBe(1_000);
    expect(clock.wall()).toBe(1_001_000);
    time.advance(0);
    expect(fired).toEqual([
      ['a@100', 1_000],
      ['b@300', 1_000],
    ]);
    time.advance(4_000);
    expect(fired.at(-1)).toEqual(['c@5000', 5_000]);
  });

  it('gives each clock its own random source and wall offset; a wall step leaves the monotonic clock alone', () => {
    const time = new VirtualTime(1_000_000);
    const a = time.clock({ seed: 1 });
    const b = time.clock({ seed: 1, wallOffsetMs: 30 });
    expect([a.random(), a.random()]).toEqual([b.random(), b.random()]);
    expect(b.wall() - a.wall()).toBe(30);
    time.advance(500);
    a.stepWall(-3_600_000);
    expect(a.monotonic()).toBe(500);
    expect(a.wall()).toBe(1_000_500 - 3_600_000);
  });

  it('seeded random sources are replayable, differ by seed and stay in [0, 1)', () => {
    const draws = (seed: number) => Array.from({ length: 1_000 }, seededRandom(seed));
    expect(draws(7)).toEqual(draws(7));
    expect(draws(7)).not.toEqual(draws(8));
    const all = draws(3);
    expect(Math.min(...all)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...all)).toBeLessThan(1);
    expect(all.reduce((s, x) => s + x, 0) / all.length).toBeCloseTo(0.5, 1);
  });
});

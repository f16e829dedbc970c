import { describe, expect, it } from 'vitest';
import { CYCLE_BUDGET, machineBusySeconds, meanInterval, median, periodicByProfile } from './measure.js';

describe('bench measures', () => {
  it('meanInterval: the mean and a Student t interval around it', () => {
    // sd of 1..5 is sqrt(2.5); t(4) = 2.776.
    const interval = meanInterval([1, 2, 3, 4, 5])!;
    expect(interval.mean).toBe(3);
    expect(interval.high - interval.mean).toBeCloseTo((2.776 * Math.sqrt(2.5)) / Math.sqrt(5), 6);
    expect(interval.mean - interval.low).toBeCloseTo(interval.high - interval.mean, 9);
  });

  it('meanInterval: beyond the table the normal quantile, and nothing from a single round', () => {
    const values = Array.from({ length: 40 }, (_, i) => (i % 2 ? 1.1 : 1.3));
    const interval = meanInterval(values)!;
    const sd = Math.sqrt((40 * 0.01) / 39);
    expect(interval.high - interval.mean).toBeCloseTo((1.96 * sd) / Math.sqrt(40), 9);
    expect(meanInterval([1.2])).toBeUndefined();
  });

  it('median of an even count is the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('machineBusySeconds counts up while the CPU works', () => {
    const before = machineBusySeconds();
    const until = performance.now() + 60;
    while (performance.now() < until) Math.sqrt(Math.random());
    expect(machineBusySeconds()).toBeGreaterThan(before);
  });

  it('periodicByProfile: the costliest periodic session of any phone of a profile, met up to 6144 bytes and 10 commands, unmet when none ran', () => {
    expect(CYCLE_BUDGET).toEqual({ bytes: 6144, commands: 10 });
    const rows = periodicByProfile([
      { profile: 'a', bytes: [40_000, 6144, 900], commands: [26, 10, 9] },
      { profile: 'a', bytes: [50_000, 1000], commands: [26, 9] },
      { profile: 'b', bytes: [40_000, 6145], commands: [26, 9] },
      { profile: 'c', bytes: [40_000, 100], commands: [26, 11] },
      { profile: 'd', bytes: [40_000], commands: [26] },
    ]);
    expect(rows).toEqual([
      { profile: 'a', phones: 2, firstBytes: 50_000, periodic: 3, periodicBytes: 6144, periodicCommands: 10, met: true },
      { profile: 'b', phones: 1, firstBytes: 40_000, periodic: 1, periodicBytes: 6145, periodicCommands: 9, met: false },
      { profile: 'c', phones: 1, firstBytes: 40_000, periodic: 1, periodicBytes: 100, periodicCommands: 11, met: false },
      { profile: 'd', phones: 1, firstBytes: 40_000, periodic: 0, periodicBytes: 0, periodicCommands: 0, met: false },
    ]);
  });
});

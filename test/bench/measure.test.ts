import { describe, expect, it } from 'vitest';
import { machineBusySeconds, meanInterval, median } from './measure.js';

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
});

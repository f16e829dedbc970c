import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SPREAD_MS, nodePhase, runDelay } from '../../src/timing/spread.js';

describe('spread', () => {
  it('places node ids that differ by one character far apart, evenly over [0, 1)', () => {
    const phases = Array.from({ length: 2_000 }, (_, i) => nodePhase(`lab-host-${i}`));
    const tenths = new Array<number>(10).fill(0);
    for (const p of phases) tenths[Math.floor(p * 10)]!++;
    for (const n of tenths) expect(n).toBeGreaterThan(150);
    // The same on every start and in every version: a changed phase would move the host's reports in the fleet's spread.
    expect(nodePhase('lab-host-1')).toBe(0.8248473349958658);
    expect(Math.abs(nodePhase('lab-host-1') - nodePhase('lab-host-2'))).toBeGreaterThan(0.001);
  });

  it('delays a run by the phase share of the gap (at most 15 min) plus at most the jitter (at most half of it)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1_000, max: 7 * 86_400_000 }),
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (phase, gapMs, jitterMs, random) => {
          const window = Math.min(gapMs, MAX_SPREAD_MS);
          const d = runDelay({ phase, gapMs, jitterMs, random });
          const base = phase * window;
          return d >= base && d <= base + Math.min(jitterMs, window / 2) && d < 1.5 * window;
        },
      ),
    );
    expect(runDelay({ phase: 0.5, gapMs: 60_000, jitterMs: 10_000, random: 0.5 })).toBe(35_000);
  });
});

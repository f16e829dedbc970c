import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/timing/token-bucket.js';

// The report budget as the planner uses it: a report starts when a token is
// free and spends it when it ends, one report at a time.

/** Reports wanted at `wants` (ms), each taking its duration: when each started and ended. */
function drive(bucket: TokenBucket, wants: number[], durations: number[]): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let free = 0;
  wants.forEach((want, k) => {
    const start = bucket.freeAt(Math.max(want, free));
    const end = start + durations[k % durations.length]!;
    bucket.spend(end);
    free = end;
    out.push({ start, end });
  });
  return out;
}

const inAnyWindow = (times: number[], windowMs: number) => Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + windowMs).length));

describe('the report budget', () => {
  it('lets 3 reports go at once, then one as each token comes back (6 s, counted while reports are in flight too)', () => {
    const b = new TokenBucket({ capacity: 3, refillMs: 6_000 });
    expect(b.freeAt(0)).toBe(0);
    b.spend(100);
    expect(b.freeAt(100)).toBe(100);
    b.spend(200);
    expect(b.freeAt(200)).toBe(200);
    b.spend(300);
    // The refill began with the first spend: a token is whole 6 s after it.
    expect(b.freeAt(300)).toBe(6_100);
    // Idle long enough, it is full again, and no fuller.
    expect(b.freeAt(60_000)).toBe(60_000);
    b.spend(60_000);
    b.spend(60_000);
    b.spend(60_000);
    expect(b.freeAt(60_000)).toBe(66_000);
  });

  it('with one token every 5 s is the fixed gap it replaces: each start 5 s after the previous end', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20_000), { minLength: 1, maxLength: 60 }), fc.array(fc.nat(3_000), { minLength: 1, maxLength: 5 }), (gaps, durations) => {
        let t = 0;
        const wants = gaps.map((g) => (t += g));
        const r = drive(new TokenBucket({ capacity: 1, refillMs: 5_000 }), wants, durations);
        for (let k = 1; k < r.length; k++) expect(r[k]!.start).toBe(Math.max(wants[k]!, r[k - 1]!.end + 5_000));
      }),
    );
  });

  it('with 3 tokens and one every 6 s, at most 12 starts and 12 ends in any 60 s, whatever the wants and durations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.nat(500), fc.nat(20_000)), { minLength: 1, maxLength: 120 }),
        fc.array(fc.nat(5_000), { minLength: 1, maxLength: 5 }),
        (gaps, durations) => {
          let t = 0;
          const r = drive(
            new TokenBucket({ capacity: 3, refillMs: 6_000 }),
            gaps.map((g) => (t += g)),
            durations,
          );
          expect(
            inAnyWindow(
              r.map((x) => x.start),
              60_000,
            ),
          ).toBeLessThanOrEqual(12);
          expect(
            inAnyWindow(
              r.map((x) => x.end),
              60_000,
            ),
          ).toBeLessThanOrEqual(12);
        },
      ),
      { numRuns: 500 },
    );
  });
});

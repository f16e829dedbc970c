import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff, backoffBound, backoffDelay } from '../../src/util/backoff.js';

describe('backoff', () => {
  it('doubles from the first wait to the cap, nothing before the first failure', () => {
    const policy = { firstMs: 250, maxMs: 10_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 1000].map((n) => backoffBound(n, policy))).toEqual([0, 250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(backoffBound(3, { firstMs: 1_000, maxMs: 60_000, factor: 3 })).toBe(9_000);
  });

  it('draws the jittered share of each wait: never above the bound, never below (1 − jitter) of it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, jitter, random) => {
          const policy = { firstMs: 20_000, maxMs: 300_000, jitter };
          const bound = backoffBound(n, policy);
          const delay = backoffDelay(n, policy, random);
          return delay <= bound && delay >= (1 - jitter) * bound && Number.isFinite(delay);
        },
      ),
      { numRuns: 200_000 },
    );
    expect(backoffDelay(2, { firstMs: 20_000, maxMs: 300_000, jitter: 0.5 }, 0.5)).toBe(30_000);
  });

  it('counts a run of failures and starts over on reset', () => {
    const b = new Backoff({ firstMs: 100, maxMs: 1_000 }, () => 0);
    expect([b.fail(), b.fail(), b.fail()]).toEqual([100, 200, 400]);
    expect(b.failures).toBe(3);
    b.reset();
    expect(b.fail()).toBe(100);
  });
});

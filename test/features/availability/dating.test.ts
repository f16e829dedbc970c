import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backdateOf } from '../../../src/features/availability/dating.js';

describe('backdateOf: when a change only an inventory could find began', () => {
  it('dates a failure halfway from the last answer to the first failure; a return from failing halfway from the latest failure to the answer', () => {
    expect(backdateOf({ held: false, good: 10_000, failingSince: 30_000, read: false })).toBe(20_000);
    expect(backdateOf({ held: true, good: 50_000, failedAt: 30_000, read: false })).toBe(40_000);
    // Held, and no answer since its latest failure: still failing, nothing to date yet.
    expect(backdateOf({ held: true, good: 10_000, failedAt: 30_000, read: false })).toBeUndefined();
  });

  it('dates what an answer read halfway from the inventory before; without one before, or any answer, it is now', () => {
    expect(backdateOf({ held: false, good: 40_000, prevGood: 20_000, read: true })).toBe(30_000);
    expect(backdateOf({ held: false, good: 40_000, read: true })).toBeUndefined();
    expect(backdateOf({ held: false, read: true, failingSince: 5 })).toBeUndefined();
    // A failure that began before the last answer is not this change.
    expect(backdateOf({ held: false, good: 40_000, prevGood: 20_000, failingSince: 30_000, read: false })).toBeUndefined();
  });

  it('never dates a change before the last word that the phone was fine, nor after now', () => {
    const t = fc.integer({ min: 0, max: 1e9 });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        t,
        fc.option(t, { nil: undefined }),
        fc.option(t, { nil: undefined }),
        fc.option(t, { nil: undefined }),
        (held, read, good, prev, failedAt, failingSince) => {
          const prevGood = prev === undefined ? undefined : Math.min(prev, good);
          const at = backdateOf({ held, read, good, prevGood, failedAt, failingSince });
          if (at === undefined) return;
          const words = [good, prevGood, failedAt, failingSince].filter((w): w is number => w !== undefined);
          expect(at).toBeGreaterThanOrEqual(Math.min(...words));
          expect(at).toBeLessThanOrEqual(Math.max(...words));
        },
      ),
    );
  });
});

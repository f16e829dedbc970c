import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The setup file hands FC_SEED to fast-check, and CI sets it (vitest.config.ts):
// the same code, the same cases, so a clean clone's run says what the landing run will.
describe('the property tests’ seed', () => {
  it('is FC_SEED when it is set, and set in CI', () => {
    const seed = process.env.FC_SEED;
    if (process.env.CI) expect(seed).toMatch(/^\d+$/);
    expect(fc.readConfigureGlobal().seed).toBe(seed ? Number(seed) : undefined);
    // The same seed, the same cases.
    if (seed) expect(fc.sample(fc.integer(), 5)).toEqual(fc.sample(fc.integer(), 5));
  });
});

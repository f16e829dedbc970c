import { describe, expect, it } from 'vitest';
import { BoundedSet } from '../../src/util/bounded-set.js';

describe('BoundedSet', () => {
  it('forgets the oldest entry when full, never everything at once', () => {
    const seen = new BoundedSet<string>(3);
    for (const k of ['a', 'b', 'c', 'd']) seen.add(k);
    expect(['a', 'b', 'c', 'd'].map((k) => seen.has(k))).toEqual([false, true, true, true]);
    // Adding again refreshes: b is now the newest, c the oldest.
    seen.add('b');
    seen.add('e');
    expect(['b', 'c', 'd', 'e'].map((k) => seen.has(k))).toEqual([true, false, true, true]);
    expect(seen.size).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { BoundedSet, setBounded } from '../../src/util/bounded-set.js';

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

describe('setBounded', () => {
  it('keeps a map to its bound: a new key past it forgets the key set first; a key set again keeps its place and forgets none', () => {
    const map = new Map<string, number>();
    for (const [i, k] of ['a', 'b', 'c'].entries()) setBounded(map, k, i, 3);
    setBounded(map, 'a', 9, 3);
    expect([...map]).toEqual([
      ['a', 9],
      ['b', 1],
      ['c', 2],
    ]);
    setBounded(map, 'd', 3, 3);
    expect([...map.keys()]).toEqual(['b', 'c', 'd']);
  });
});

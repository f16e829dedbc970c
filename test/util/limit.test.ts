import { describe, expect, it } from 'vitest';
import { Limiter, mapLimit, waitWhileSettling } from '../../src/util/limit.js';

const after = (ms: number, fail = false) => new Promise<void>((resolve, reject) => setTimeout(() => (fail ? reject(new Error('x')) : resolve()), ms));

describe('waitWhileSettling', () => {
  it('waits for every task while they keep finishing, however long that takes in all', async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => after(100 * (i + 1), i % 3 === 0));
    const t0 = Date.now();
    await waitWhileSettling(tasks, 400, 10_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_150);
  });

  it('stops waiting for a straggler once idleMs pass with nothing settling', async () => {
    const t0 = Date.now();
    await waitWhileSettling([after(50), after(100), new Promise(() => undefined)], 300, 10_000);
    const waited = Date.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(390);
    expect(waited).toBeLessThan(1_000);
  });

  it('never waits past maxMs, even while tasks keep settling', async () => {
    const tasks = Array.from({ length: 50 }, (_, i) => after(50 * (i + 1)));
    const t0 = Date.now();
    await waitWhileSettling(tasks, 200, 600);
    expect(Date.now() - t0).toBeLessThan(1_200);
  });
});

describe('Limiter', () => {
  it('runs at most limit tasks at once and keeps mapLimit results in order', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      await after(n * 10);
      running--;
      return n * 2;
    });
    expect(out).toEqual([10, 2, 8, 4, 6]);
    expect(most).toBe(2);
    await expect(new Limiter(1).run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});

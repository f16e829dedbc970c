import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../support/virtual-time.js';
import { Limiter, mapLimit, waitWhileSettling } from '../../src/util/limit.js';

// waitWhileSettling on a time line the test moves: the tasks settle on its
// timers and the wait ends on them, so the times are exact, whatever the
// machine's load (these waited 2.2 s of real time, with a bound a loaded
// machine could miss).

/** A task that settles `ms` after now on the time line. */
const after = (time: VirtualTime, ms: number, fail = false): Promise<void> =>
  new Promise<void>((resolve, reject) => time.schedule(() => (fail ? reject(new Error('x')) : resolve()), ms));

/** When the wait ends on the time line: moved on a millisecond at a time, the settled tasks' callbacks run between steps. */
async function endOf(time: VirtualTime, wait: Promise<unknown>, limitMs = 20_000): Promise<number> {
  let ended: number | undefined;
  void wait.then(() => (ended = time.now));
  for (;;) {
    for (let i = 0; i < 5; i++) await Promise.resolve();
    if (ended !== undefined || time.now >= limitMs) break;
    time.advance(1);
  }
  return ended ?? Infinity;
}

describe('waitWhileSettling', () => {
  it('waits for every task while they keep finishing, however long that takes in all', async () => {
    const time = new VirtualTime();
    const tasks = Array.from({ length: 12 }, (_, i) => after(time, 100 * (i + 1), i % 3 === 0));
    // Each settles 100 ms after the last, within the idle 400 ms: the wait ends with the last, at 1,200 ms.
    expect(await endOf(time, waitWhileSettling(tasks, 400, 10_000, time.clock()))).toBe(1_200);
  });

  it('stops waiting for a straggler once idleMs pass with nothing settling', async () => {
    const time = new VirtualTime();
    const wait = waitWhileSettling([after(time, 50), after(time, 100), new Promise(() => undefined)], 300, 10_000, time.clock());
    expect(await endOf(time, wait)).toBe(400);
  });

  it('never waits past maxMs, even while tasks keep settling', async () => {
    const time = new VirtualTime();
    const tasks = Array.from({ length: 50 }, (_, i) => after(time, 50 * (i + 1)));
    expect(await endOf(time, waitWhileSettling(tasks, 200, 600, time.clock()))).toBe(600);
  });

  it('ends at once with no task', async () => {
    const time = new VirtualTime();
    expect(await endOf(time, waitWhileSettling([], 200, 600, time.clock()))).toBe(0);
  });
});

describe('Limiter', () => {
  it('runs at most limit tasks at once and keeps mapLimit results in order', async () => {
    const time = new VirtualTime();
    let running = 0;
    let most = 0;
    const mapped = mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      await after(time, n * 10);
      running--;
      return n * 2;
    });
    let out: number[] | undefined;
    void mapped.then((o) => (out = o));
    await endOf(time, mapped);
    expect(out).toEqual([10, 2, 8, 4, 6]);
    expect(most).toBe(2);
    await expect(new Limiter(1).run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});

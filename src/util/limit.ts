import { systemClock, type Timer, type Timers } from './clock.js';

/** At most `limit` tasks run at once; the others wait their turn in order. */
export class Limiter {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>) {
    if (this.running >= Math.max(1, this.limit)) await new Promise<void>((r) => this.queue.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }
}

/**
 * Waits for the tasks while they keep finishing: until all have settled, `idleMs` pass with none of them settling, or
 * `maxMs` pass in all. Never rejects (the caller reads outcomes elsewhere). A lab's many inventories finish one after
 * another and are all waited for; one straggler holds the wait for idleMs at most. On the caller's timers, so that a
 * report's wait runs on the same clock as the rest of its timing.
 */
export function waitWhileSettling(tasks: readonly Promise<unknown>[], idleMs: number, maxMs: number, timers: Timers = systemClock) {
  let pending = tasks.length;
  if (pending === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let idle: Timer | undefined;
    const done = () => {
      idle?.cancel();
      cap.cancel();
      resolve();
    };
    const cap = timers.setTimer(done, maxMs);
    const rearm = () => {
      idle?.cancel();
      idle = timers.setTimer(done, idleMs);
    };
    rearm();
    for (const task of tasks) {
      void task.then(noop, noop).then(() => {
        if (--pending === 0) done();
        else rearm();
      });
    }
  });
}

function noop() {}

/** Maps items with at most `limit` calls of fn in flight (one Limiter); results keep the input order. */
export function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>) {
  const limiter = new Limiter(limit);
  return Promise.all(items.map((item) => limiter.run(() => fn(item))));
}

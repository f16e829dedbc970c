import { performance } from 'node:perf_hooks';

/**
 * Time as the agent's decisions read it, injected wherever code decides on time so that tests can drive it: a monotonic
 * clock for durations and plans (a wall-clock step neither stalls nor rushes them), the wall clock for what people and
 * the cloud read (timestamps, cron times), and the random source of jitter (a seeded one makes a fleet of agents
 * replayable).
 */
export interface Clock {
  /** Milliseconds on a clock that never steps (performance.now). */
  monotonic(): number;
  /** Milliseconds since the Unix epoch (Date.now). */
  wall(): number;
  /** A number in [0, 1). */
  random: () => number;
}

export interface Timer {
  cancel(): void;
}

/**
 * Waking code up after a while, on the same time line as the clock beside it: the scheduler's and the watchers' timers
 * run on it, so a virtual clock drives them too.
 */
export interface Timers {
  /** Calls fn once, ms from now (monotonic). unref: the timer alone does not keep the process alive. */
  setTimer(fn: () => void, ms: number, options?: { unref?: boolean }): Timer;
}

export const systemClock: Clock & Timers = {
  monotonic: () => performance.now(),
  wall: () => Date.now(),
  random: () => Math.random(),
  setTimer(fn, ms, options) {
    const t = setTimeout(fn, Math.max(0, ms));
    if (options?.unref) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * Calls fn every ms on the timers until the returned timer is cancelled, as setInterval does on real time: the next
 * call is set before this one runs, so the period holds however long fn takes.
 */
export function every(timers: Timers, ms: number, fn: () => void, options?: { unref?: boolean }) {
  let next: Timer | undefined;
  let cancelled = false;
  const arm = () => {
    next = timers.setTimer(
      () => {
        if (cancelled) return;
        arm();
        fn();
      },
      // As setInterval: at least 1 ms, or a virtual time line would never move past it.
      Math.max(1, ms),
      options,
    );
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      next?.cancel();
    },
  };
}

/** A wall time for people and the cloud's messages: UTC, to the second (2026-11-23T17:40:00Z). */
export function utcText(wallMs: number) {
  return new Date(wallMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

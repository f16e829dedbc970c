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
export function every(timers: Timers, ms: number, fn: () => void, options?: { unref?: boolean }): Timer {
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

/**
 * A seeded random source (mulberry32): the same seed gives the same numbers, so a simulated fleet's jitter is
 * replayable and two runs can be compared draw for draw.
 */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A timer on a VirtualTime: the heap's entry is the Timer its caller holds (no closure a timer). */
class Pending implements Timer {
  cancelled = false;

  constructor(
    readonly at: number,
    readonly seq: number,
    readonly fn: () => void,
  ) {}

  cancel() {
    this.cancelled = true;
  }
}

/**
 * Virtual time for tests and simulations: nothing moves until advance() or runUntil() moves it, and timers fire in time
 * order (ties in the order they were set). One VirtualTime is the time line of a whole simulated fleet; each agent gets
 * its own clock() on it, with its own random source and, if wanted, a wall clock that is off by some amount (hosts are
 * never exactly in step) or that steps.
 */
export class VirtualTime {
  private t = 0;
  private seq = 0;
  private readonly heap: Pending[] = [];

  constructor(readonly epochMs = Date.UTC(2026, 0, 5, 12, 0, 0)) {}

  /** Monotonic ms since the time line began. */
  get now() {
    return this.t;
  }

  /** A clock on this time line. */
  clock(options: { seed?: number; random?: () => number; wallOffsetMs?: number } = {}) {
    return new VirtualClock(this, options.random ?? seededRandom(options.seed ?? 1), options.wallOffsetMs ?? 0);
  }

  schedule(fn: () => void, ms: number): Timer {
    const entry = new Pending(this.t + Math.max(0, ms), this.seq++, fn);
    this.push(entry);
    return entry;
  }

  /** Fires every timer due up to `until` (monotonic ms), in order, then stands at `until`. */
  runUntil(until: number) {
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.at > until) break;
      this.pop();
      if (next.cancelled) continue;
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, until);
  }

  advance(ms: number) {
    this.runUntil(this.t + ms);
  }

  /**
   * The process stalls for ms (a paused VM, a blocked event loop): both clocks move on and no timer fires; the next
   * advance() fires every one that came due meanwhile, late.
   */
  stall(ms: number) {
    this.t += Math.max(0, ms);
  }

  /**
   * When the next pending timer fires (monotonic ms), if any: a test whose timers start work that settles on promises
   * runs time on timer by timer, letting each one's work run before the next (as the event loop would).
   */
  get next(): number | undefined {
    while (this.heap[0]?.cancelled) this.pop();
    return this.heap[0]?.at;
  }

  /** Timers still pending (cancelled ones excluded). */
  get pending() {
    return this.heap.filter((p) => !p.cancelled).length;
  }

  private push(entry: Pending) {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    // Sifted with a hole, not swaps: a destructuring swap allocates, and a fleet of a thousand agents runs millions of
    // timers through here.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!before(entry, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = entry;
  }

  private pop() {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const m = r < h.length && before(h[r]!, h[l]!) ? r : l;
      if (!before(h[m]!, last)) break;
      h[i] = h[m]!;
      i = m;
    }
    h[i] = last;
  }
}

const before = (a: Pending, b: Pending) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** One host's clock on a VirtualTime. */
export class VirtualClock implements Clock, Timers {
  constructor(
    readonly time: VirtualTime,
    readonly random: () => number,
    private wallOffsetMs: number,
  ) {}

  monotonic() {
    return this.time.now;
  }

  wall() {
    return this.time.epochMs + this.time.now + this.wallOffsetMs;
  }

  setTimer(fn: () => void, ms: number): Timer {
    return this.time.schedule(fn, ms);
  }

  /** The wall clock jumps by ms (NTP, a suspended VM, a manual change); the monotonic clock does not. */
  stepWall(ms: number) {
    this.wallOffsetMs += ms;
  }
}

/** A wall time for people and the cloud's messages: UTC, to the second (2026-11-23T17:40:00Z). */
export function utcText(wallMs: number) {
  return new Date(wallMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

import TinyQueue from 'tinyqueue';
import type { Clock, Timer, Timers } from '../../src/util/clock.js';

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

/** A timer on a VirtualTime: the queue's entry is the Timer its caller holds (no closure a timer). */
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
  // A binary heap (tinyqueue, 1 kB, no dependencies): a fleet of a thousand agents runs millions of timers through it.
  private readonly heap = new TinyQueue<Pending>([], (a, b) => a.at - b.at || a.seq - b.seq);

  constructor(readonly epochMs = Date.UTC(2026, 0, 5, 12, 0, 0)) {}

  /** Monotonic ms since the time line began. */
  get now() {
    return this.t;
  }

  /** A clock on this time line. */
  clock(options: { seed?: number; random?: () => number; wallOffsetMs?: number } = {}) {
    return new VirtualClock(this, options.random ?? seededRandom(options.seed ?? 1), options.wallOffsetMs ?? 0);
  }

  schedule(fn: () => void, ms: number) {
    const entry = new Pending(this.t + Math.max(0, ms), this.seq++, fn);
    this.heap.push(entry);
    return entry;
  }

  /** Fires every timer due up to `until` (monotonic ms), in order, then stands at `until`. */
  runUntil(until: number) {
    for (;;) {
      const next = this.heap.peek();
      if (next === undefined || next.at > until) break;
      this.heap.pop();
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
  get next() {
    while (this.heap.peek()?.cancelled) this.heap.pop();
    return this.heap.peek()?.at;
  }

  /** Timers still pending (cancelled ones excluded). */
  get pending() {
    return this.heap.data.filter((p) => !p.cancelled).length;
  }
}

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

  setTimer(fn: () => void, ms: number) {
    return this.time.schedule(fn, ms);
  }

  /** The wall clock jumps by ms (NTP, a suspended VM, a manual change); the monotonic clock does not. */
  stepWall(ms: number) {
    this.wallOffsetMs += ms;
  }
}

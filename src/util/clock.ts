import { performance } from 'node:perf_hooks';

/**
 * Time as the agent's decisions read it, injected wherever code decides on
 * time so that tests can drive it: a monotonic clock for durations and
 * plans (a wall-clock step neither stalls nor rushes them), the wall clock
 * for what people and the cloud read (timestamps, "since"), and the random
 * source of jitter.
 */
export interface Clock {
  /** Milliseconds on a clock that never steps (performance.now). */
  monotonic(): number;
  /** Milliseconds since the Unix epoch (Date.now). */
  wall(): number;
  /** A number in [0, 1). */
  random(): number;
}

export const systemClock: Clock = {
  monotonic: () => performance.now(),
  wall: () => Date.now(),
  random: () => Math.random(),
};

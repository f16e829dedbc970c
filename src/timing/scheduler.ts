import type { Logger } from '../log/logger.js';
import { every, systemClock, type Clock, type Timer, type Timers } from '../util/clock.js';
import { nextRun, parseCron, type CronSchedule } from '../util/cron.js';
import { nodePhase, runDelay } from './spread.js';
import { limited } from '../log/limited.js';

// How often the wall clock is compared with the monotonic one, and how far they may drift apart before it counts as a
// step.
const CLOCK_CHECK_MS = 1_000;
const CLOCK_STEP_MS = 3_000;
// Timers run on the monotonic clock: a long wait is cut into pieces so that the wall clock is read again at least this
// often.
const MAX_SLEEP_MS = 60_000;

export interface SchedulerOptions {
  expression: string;
  /** Upper bound of the random part of each run's delay (jitterSeconds). */
  jitterMs: number;
  /** This host's node id: it fixes where in each period the host's runs go (src/timing/spread.ts). */
  nodeId: string;
  onTick: () => void;
  logger: Logger;
  /** Wall and monotonic time, jitter and timers (default: the system's). */
  clock?: Clock & Timers;
  /** How often the wall clock is compared with the monotonic one (default 1 s); a simulation whose clocks never step may compare less often. */
  clockCheckMs?: number;
}

/**
 * The periodic report. Guarantees (test/timing/scheduler.test.ts, and test/timing/fleet.test.ts for a fleet):
 * - onTick is called once for each time the cron expression names, at the host's own offset after it (a stable share of
 *   the gap to the next time, read from the node id, at most 15 minutes, plus a random part under jitterMs), so a
 *   fleet's runs are spread evenly over the period, and one host's runs are the gap between their times apart, give or
 *   take the jitter;
 * - a run whose time passed while the process stalled is made up once, and the runs it skipped are not; after a wall
 *   clock step the schedule starts again from the new time, with one log line (the planner's watchdog covers a lost
 *   run);
 * - it reads time, randomness and timers only through the clock it is given.
 */
export class Scheduler {
  private readonly schedule: CronSchedule;
  private readonly clock: Clock & Timers;
  private readonly phase: number;
  /** The cron time of the next run and when it goes (wall ms, spread included). */
  private next: { cronAt: number; at: number } | undefined;
  private timer: Timer | undefined;
  private clockTimer: Timer | undefined;
  private clockMark = { wall: 0, mono: 0 };

  constructor(private readonly options: SchedulerOptions) {
    const parsed = parseCron(options.expression);
    // The settings check has already said this in its own words.
    if (typeof parsed === 'string') throw new Error(`schedule ${parsed}`);
    this.schedule = parsed;
    this.clock = options.clock ?? systemClock;
    this.phase = nodePhase(options.nodeId);
  }

  start() {
    this.clockMark = this.readClocks();
    this.clockTimer = every(this.clock, this.options.clockCheckMs ?? CLOCK_CHECK_MS, () => this.checkClock(), { unref: true });
    this.plan(this.clock.wall());
  }

  stop() {
    this.clockTimer?.cancel();
    this.timer?.cancel();
    this.clockTimer = this.timer = this.next = undefined;
  }

  /**
   * The longest time between two scheduled runs over the next few, read from the expression itself (so also before
   * start()): the planner's watchdog makes up a run lost to a clock jump after this long.
   */
  periodMs() {
    let longest = 0;
    let at = nextRun(this.schedule, this.clock.wall());
    for (let i = 0; i < 5 && at !== undefined; i++) {
      const next = nextRun(this.schedule, at);
      if (next !== undefined) longest = Math.max(longest, next - at);
      at = next;
    }
    return longest || 60_000;
  }

  /** When the next scheduled run goes (wall ms, this host's offset and jitter included), or undefined when stopped. */
  nextRunAt() {
    return this.next?.at;
  }

  /**
   * Plans the first run that goes after `wall`, starting from the cron times after `fromCron`: a run whose time has
   * passed is skipped, not made up. By default it looks back as far as a run may still be pending: its delay is at most
   * the longest gap plus the jitter.
   */
  private plan(wall: number, fromCron = wall - this.periodMs() - this.options.jitterMs) {
    this.timer?.cancel();
    let cronAt = nextRun(this.schedule, fromCron);
    this.next = undefined;
    while (cronAt !== undefined) {
      const after = nextRun(this.schedule, cronAt);
      const gapMs = after === undefined ? 0 : after - cronAt;
      const at = cronAt + runDelay({ phase: this.phase, gapMs, jitterMs: this.options.jitterMs, random: this.clock.random() });
      if (at > wall) {
        this.next = { cronAt, at };
        break;
      }
      cronAt = after;
    }
    this.arm();
  }

  private arm() {
    if (this.next === undefined) return;
    const wait = Math.min(Math.max(this.next.at - this.clock.wall(), 0), MAX_SLEEP_MS);
    this.timer = this.clock.setTimer(() => this.wake(), wait);
  }

  private wake() {
    const next = this.next;
    if (next === undefined) return;
    const now = this.clock.wall();
    if (now < next.at) return this.arm();
    this.options.onTick();
    // Late (a stall): this run went once; the ones whose time has also passed are skipped.
    this.plan(now, next.cronAt);
  }

  private readClocks() {
    return { wall: this.clock.wall(), mono: this.clock.monotonic() };
  }

  private checkClock() {
    const now = this.readClocks();
    // How far the wall clock moved against the monotonic clock (positive: forward). A cron schedule follows the wall
    // clock: a naive one waits out a step back (an hour's step: an hour without a report) and makes up, or warns
    // about, every run a step forward skipped.
    const step = now.wall - this.clockMark.wall - (now.mono - this.clockMark.mono);
    this.clockMark = now;
    if (Math.abs(step) < CLOCK_STEP_MS || this.next === undefined) return;
    limited(this.options.logger).warn(
      'clock-step',
      { stepSeconds: Math.round(step / 1000) },
      `the wall clock stepped ${step > 0 ? 'forward' : 'back'} by ${Math.round(Math.abs(step) / 1000)} s (NTP, suspend and resume, or a manual change); ` +
        'the report schedule restarts from the new time',
    );
    this.plan(now.wall);
  }
}

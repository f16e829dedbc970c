import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.js';
import { nextRun, parseCron, type CronSchedule } from '../util/cron.js';
import { limited } from '../log/limited.js';

// How often the wall clock is compared with the monotonic one, and how far
// they may drift apart before it counts as a step.
const CLOCK_CHECK_MS = 1_000;
const CLOCK_STEP_MS = 3_000;
// Timers run on the monotonic clock: a long wait is cut into pieces so that
// the wall clock is read again at least this often.
const MAX_SLEEP_MS = 60_000;

/**
 * How far the wall clock moved against the monotonic clock between two
 * readings (positive: forward). A cron schedule follows the wall clock: a
 * naive one waits out a step back (an hour's step: an hour without a report)
 * and makes up, or warns about, every run a step forward skipped.
 */
export function wallClockStep(prev: { wall: number; mono: number }, now: { wall: number; mono: number }): number {
  return now.wall - prev.wall - (now.mono - prev.mono);
}

export interface SchedulerOptions {
  expression: string;
  /** Upper bound of the random delay before each run, so a fleet does not report in the same second. */
  jitterMs: number;
  onTick: () => void;
  logger: Logger;
}

/**
 * The periodic report: calls onTick once for each time the cron expression
 * names, after a random delay under jitterMs; a time that passed while the
 * process stalled or the wall clock stepped is skipped, not made up (the
 * planner's watchdog covers a lost run).
 */
export class Scheduler {
  private readonly schedule: CronSchedule;
  private nextAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly delayed = new Set<NodeJS.Timeout>();
  private clockTimer: NodeJS.Timeout | undefined;
  private clockMark = { wall: 0, mono: 0 };

  constructor(private readonly options: SchedulerOptions) {
    const parsed = parseCron(options.expression);
    // The settings check has already said this in its own words.
    if (typeof parsed === 'string') throw new Error(`schedule ${parsed}`);
    this.schedule = parsed;
  }

  start(): void {
    this.clockMark = { wall: Date.now(), mono: performance.now() };
    this.clockTimer = setInterval(() => this.checkClock(), CLOCK_CHECK_MS);
    this.clockTimer.unref();
    this.plan(Date.now());
  }

  async stop(): Promise<void> {
    clearInterval(this.clockTimer);
    clearTimeout(this.timer);
    for (const t of this.delayed) clearTimeout(t);
    this.delayed.clear();
    this.nextAt = undefined;
  }

  /**
   * The longest time between two scheduled runs over the next few, read from
   * the expression itself (so also before start()): the planner's watchdog
   * makes up a run lost to a clock jump after this long.
   */
  periodMs(): number {
    let longest = 0;
    let at = nextRun(this.schedule, Date.now());
    for (let i = 0; i < 5 && at !== undefined; i++) {
      const next = nextRun(this.schedule, at);
      if (next !== undefined) longest = Math.max(longest, next - at);
      at = next;
    }
    return longest || 60_000;
  }

  /** When the next scheduled run starts (before jitter), or undefined when stopped. */
  nextRunAt(): number | undefined {
    return this.nextAt;
  }

  private plan(afterWall: number): void {
    clearTimeout(this.timer);
    this.nextAt = nextRun(this.schedule, afterWall);
    this.arm();
  }

  private arm(): void {
    if (this.nextAt === undefined) return;
    const wait = Math.min(Math.max(this.nextAt - Date.now(), 0), MAX_SLEEP_MS);
    this.timer = setTimeout(() => this.wake(), wait);
  }

  private wake(): void {
    if (this.nextAt === undefined) return;
    const now = Date.now();
    if (now < this.nextAt) return this.arm();
    this.run();
    this.plan(now);
  }

  private run(): void {
    const delay = Math.floor(Math.random() * this.options.jitterMs);
    if (delay === 0) return this.options.onTick();
    const t = setTimeout(() => {
      this.delayed.delete(t);
      this.options.onTick();
    }, delay);
    this.delayed.add(t);
  }

  private checkClock(): void {
    const now = { wall: Date.now(), mono: performance.now() };
    const step = wallClockStep(this.clockMark, now);
    this.clockMark = now;
    if (Math.abs(step) < CLOCK_STEP_MS || this.nextAt === undefined) return;
    limited(this.options.logger).warn(
      'clock-step',
      { stepSeconds: Math.round(step / 1000) },
      `the wall clock stepped ${step > 0 ? 'forward' : 'back'} by ${Math.round(Math.abs(step) / 1000)} s (NTP, suspend and resume, or a manual change); ` +
        'the report schedule restarts from the new time',
    );
    this.plan(now.wall);
  }
}

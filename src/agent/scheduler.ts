import cron, { type ScheduledTask } from 'node-cron';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.js';

// How often the wall clock is compared with the monotonic one, and how far
// they may drift apart before it counts as a step.
const CLOCK_CHECK_MS = 1_000;
const CLOCK_STEP_MS = 3_000;

/**
 * How far the wall clock moved against the monotonic clock between two
 * readings (positive: forward). node-cron follows the wall clock: after a step
 * back it waits until the old time comes round again (an hour's step: an hour
 * without a scheduled report), and after a step forward it warns once for
 * every run it skipped.
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
 * The periodic report: a node-cron task with node-cron's own random delay as
 * jitter, started afresh when the wall clock steps (NTP, suspend and resume,
 * an operator's date command), so a step neither stalls nor floods it.
 */
export class Scheduler {
  private task: ScheduledTask | undefined;
  private clockTimer: NodeJS.Timeout | undefined;
  private clockMark = { wall: 0, mono: 0 };

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    // node-cron's own logger writes plain text to the console; keep every line JSON.
    const log = this.options.logger.child({ component: 'node-cron' });
    cron.setLogger({
      info: (m) => log.debug(m),
      // "missed execution" comes once per skipped run after a clock step: the
      // step itself is logged once below.
      warn: (m) => (String(m).includes('missed execution') ? log.debug(String(m)) : log.warn(m)),
      error: (m, err) => log.error({ err: err?.message }, String(m)),
      debug: (m) => log.debug(String(m)),
    });
    this.schedule();
    this.clockMark = { wall: Date.now(), mono: performance.now() };
    this.clockTimer = setInterval(() => this.checkClock(), CLOCK_CHECK_MS);
    this.clockTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.clockTimer);
    const task = this.task;
    this.task = undefined;
    await task?.destroy();
  }

  private schedule(): void {
    this.task = cron.schedule(this.options.expression, () => this.options.onTick(), {
      name: 'device-agent report',
      noOverlap: false,
      maxRandomDelay: this.options.jitterMs,
    });
  }

  private checkClock(): void {
    const now = { wall: Date.now(), mono: performance.now() };
    const step = wallClockStep(this.clockMark, now);
    this.clockMark = now;
    if (Math.abs(step) < CLOCK_STEP_MS || !this.task) return;
    this.options.logger.warn(
      { stepSeconds: Math.round(step / 1000) },
      `the wall clock stepped ${step > 0 ? 'forward' : 'back'} by ${Math.round(Math.abs(step) / 1000)} s (NTP, suspend and resume, or a manual change); ` +
        'the report schedule restarts from the new time',
    );
    const old = this.task;
    this.schedule();
    void old.destroy();
  }

  /**
   * The longest time between two scheduled runs over the next few, read from
   * the expression itself (so also before start()): the planner's watchdog
   * makes up a run lost to a clock jump after this long.
   */
  periodMs(): number {
    const task = this.task ?? cron.createTask(this.options.expression, () => undefined);
    const runs = task.getNextRuns(6).map((d) => d.getTime());
    if (!this.task) void task.destroy();
    let longest = 0;
    for (let i = 1; i < runs.length; i++) longest = Math.max(longest, runs[i]! - runs[i - 1]!);
    return longest || 60_000;
  }

  /** When the next scheduled run starts (before jitter), or undefined when stopped. */
  nextRunAt(): number | undefined {
    return this.task?.getNextRun()?.getTime();
  }
}

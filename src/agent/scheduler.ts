import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log/logger.js';

export interface SchedulerOptions {
  expression: string;
  /** Upper bound of the random delay before each run, so a fleet does not report in the same second. */
  jitterMs: number;
  onTick: () => void;
  logger: Logger;
}

/** The periodic report: a node-cron task with node-cron's own random delay as jitter. */
export class Scheduler {
  private task: ScheduledTask | undefined;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    // node-cron's own logger writes plain text to the console; keep every line JSON.
    const log = this.options.logger.child({ component: 'node-cron' });
    cron.setLogger({
      info: (m) => log.debug(m),
      warn: (m) => log.warn(m),
      error: (m, err) => log.error({ err: err?.message }, String(m)),
      debug: (m) => log.debug(String(m)),
    });
    this.task = cron.schedule(this.options.expression, () => this.options.onTick(), {
      name: 'device-agent report',
      noOverlap: false,
      maxRandomDelay: this.options.jitterMs,
    });
  }

  async stop(): Promise<void> {
    const task = this.task;
    this.task = undefined;
    await task?.destroy();
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

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

  /** Time between two scheduled runs, from the next two; undefined when stopped. */
  intervalMs(): number | undefined {
    const [a, b] = this.task?.getNextRuns(2) ?? [];
    return a && b ? b.getTime() - a.getTime() : undefined;
  }

  /** When the next scheduled run starts (before jitter), or undefined when stopped. */
  nextRunAt(): number | undefined {
    return this.task?.getNextRun()?.getTime();
  }
}

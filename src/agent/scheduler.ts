import cron, { type ScheduledTask } from 'node-cron';

export interface SchedulerOptions {
  expression: string;
  /** Upper bound of the random delay before each run, so a fleet does not report in the same second. */
  jitterMs: number;
  onTick: () => void;
}

/** The periodic report: a node-cron task with node-cron's own random delay as jitter. */
export class Scheduler {
  private task: ScheduledTask | undefined;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
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

  /** When the next scheduled run starts (before jitter), or undefined when stopped. */
  nextRunAt(): number | undefined {
    return this.task?.getNextRun()?.getTime();
  }
}

import type { Clock, Timer, Timers } from '../util/clock.js';
import type { PlannedReport, ReportPlanner } from './planner.js';

/**
 * The report loop's one timer, on the injected clock: it is set to the planner's next report time whenever something
 * the planner heard may have moved it (arm), and when it fires, the planner's plan goes to run(). The planner hands out
 * nothing while a report is in flight, so run() is never called twice at once; its owner tells the planner the outcome
 * and arms the timer again. The agent's report loop and the fleet simulation (test/timing/fleet.ts) both drive the
 * planner through this class.
 */
export class PlanTimer {
  private timer: Timer | undefined;
  private running = false;

  constructor(
    private readonly planner: ReportPlanner,
    private readonly clock: Pick<Clock, 'monotonic'> & Timers,
    private readonly run: (plan: PlannedReport) => void,
  ) {}

  /** Plans the start report and sets the timer. */
  start() {
    this.running = true;
    this.planner.start(this.clock.monotonic());
    this.arm();
  }

  /** No report is handed out from now on; one in flight goes on. */
  stop() {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The schedule's tick: a scheduled report is due. */
  tick() {
    this.planner.scheduleTick(this.clock.monotonic());
    this.arm();
  }

  /** Sets the timer to the planner's next report time (none while a report is in flight). */
  arm() {
    this.timer?.cancel();
    this.timer = undefined;
    if (!this.running) return;
    const now = this.clock.monotonic();
    const at = this.planner.nextAt(now);
    if (at === undefined) return;
    // setTimeout holds at most 2^31-1 ms; a plan further out is looked at again then.
    this.timer = this.clock.setTimer(() => this.fire(), Math.min(2 ** 31 - 1, Math.max(0, Math.ceil(at - now))));
  }

  private fire() {
    if (!this.running) return;
    const plan = this.planner.take(this.clock.monotonic());
    if (!plan) return this.arm();
    this.run(plan);
  }
}

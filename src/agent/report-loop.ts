import type { FailedDevice } from '../cloud/types.js';
import type { Settings } from '../config/schema.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import type { DeviceSource } from '../platforms/source.js';
import type { Reporter } from '../report/reporter.js';
import { ReportRun } from '../report/run.js';
import type { UnpluggedLedger } from '../report/unplugged.js';
import { PlanTimer } from '../timing/plan-timer.js';
import { ReportPlanner } from '../timing/planner.js';
import { Scheduler } from '../timing/scheduler.js';
import type { Clock, Timers } from '../util/clock.js';

/**
 * How long the start report waits at most for every source's first listing, or it would say "no devices" of a host
 * with phones. 10 s, adb's own settle: an adb server starting with the agent is waited for, and a host whose adb stays
 * down still tells the cloud it is alive soon; /healthz stays unhealthy until a report after every listing is delivered.
 */
export const FIRST_LISTING_WAIT_MS = 10_000;

export interface ReportLoopDeps {
  settings: Pick<Settings, 'schedule' | 'jitterSeconds' | 'changeDebounceMs' | 'shutdownTimeoutSeconds'>;
  nodeId: string;
  sources: readonly DeviceSource[];
  registry: DeviceRegistry;
  reporter: Pick<Reporter, 'send' | 'waitingOn'>;
  unplugged: UnpluggedLedger;
  logger: Logger;
  clock: Clock & Timers;
  /** Default FIRST_LISTING_WAIT_MS. */
  firstListingWaitMs?: number;
}

/**
 * The report loop, as a lifecycle: events, ticks and outcomes go into the planner; its one timer fires when the planner
 * says and hands the plan to the report run (src/report/run.ts). All on the injected clock and timers.
 */
export class ReportLoop {
  private readonly scheduler: Scheduler;
  private readonly planner: ReportPlanner;
  private readonly timer: PlanTimer;
  private readonly run: ReportRun;
  private started = false;
  private stopping = false;

  constructor(private readonly deps: ReportLoopDeps) {
    const { settings, logger, clock, nodeId, sources } = deps;
    this.scheduler = new Scheduler({
      expression: settings.schedule,
      jitterMs: settings.jitterSeconds * 1000,
      nodeId,
      onTick: () => this.timer.tick(),
      logger,
      clock,
    });
    const periodMs = this.scheduler.periodMs();
    const ready = new Map(sources.map((s) => [s.platform, s.readyState]));
    this.planner = new ReportPlanner(deps.registry, {
      periodMs,
      jitterMs: settings.jitterSeconds * 1000,
      debounceMs: settings.changeDebounceMs,
      // A fleet restarted together spreads its first reports over the jitter (at most a period).
      startSpreadMs: Math.min(settings.jitterSeconds * 1000, periodMs),
      random: () => clock.random(),
      listed: () => sources.every((s) => s.listed),
      returning: () => deps.registry.size < deps.unplugged.current.length,
      firstListingWaitMs: deps.firstListingWaitMs ?? FIRST_LISTING_WAIT_MS,
      // A retry chain never outlives the next scheduled report.
      deadline: () => this.scheduler.nextRunAt() ?? clock.wall() + 60_000,
      ready: (d) => ready.get(d.platform) === d.state,
    });
    this.run = new ReportRun({ planner: this.planner, reporter: deps.reporter, unplugged: deps.unplugged, logger, clock, ended: () => this.arm() });
    this.timer = new PlanTimer(this.planner, clock, (plan) => this.run.fire(plan));
  }

  /** Time between scheduled reports. */
  get periodMs() {
    return this.scheduler.periodMs();
  }

  /** The devices of the last report, UNPLUGGED ones left out. */
  get lastDevices() {
    return this.run.lastDevices;
  }

  /** The devices the cloud did not store, while they are reported. */
  failedDevices(): FailedDevice[] {
    return this.planner.failed.current();
  }

  /** Starts the schedule and plans the start report. */
  start() {
    this.scheduler.start();
    this.started = true;
    this.timer.start();
  }

  /** Stops planning: the schedule and the timer; a report in flight goes on (settle()). */
  stop() {
    this.stopping = true;
    this.run.stop();
    this.timer.stop();
    this.scheduler.stop();
  }

  /** Lets the report in flight finish within `limitMs`, then aborts it. */
  settle(limitMs: number) {
    return this.run.settle(limitMs);
  }

  /** Asks for a full report now (SIGHUP, tests); resolves with its outcome. */
  report(reason: string) {
    if (this.stopping || !this.started) return Promise.resolve(undefined);
    limited(this.deps.logger).info('report-requested', { reason }, 'a full report was asked for');
    // An operator asking (SIGHUP) is a sign that slow facts may have changed too: read them all again.
    for (const source of this.deps.sources) source.invalidateSlow();
    this.planner.requested();
    const done = this.run.awaitRequested();
    this.arm();
    return done;
  }

  /** A source's listing changed, an inventory brought news, or an action changed what a device's report says. */
  devicesChanged() {
    this.planner.devicesChanged(this.now());
    this.arm();
  }

  /** Whether a report is being built now: the plan handed out, its outcome not yet heard. */
  get reporting() {
    return this.run.reporting;
  }

  /** Runs `heard` now, or once the report being built has ended (ReportRun.afterReport). */
  afterReport(heard: () => void) {
    this.run.afterReport(heard);
  }

  /** An inventory's outcome was noted: a failure plans a retry, so look at the plan again. */
  outcomeNoted() {
    this.arm();
  }

  /** A source's service (re)connected: its listing counts as complete once it has settled, settleMs later. */
  sourceConnected(settleMs: number) {
    this.planner.sourceConnected(this.now(), settleMs);
    this.deps.unplugged.sourceConnected();
    this.arm();
  }

  /** A source's service came back: no change says that the inventories cut off by its restart need redoing. */
  sourceResumed() {
    this.planner.sourceResumed(this.now());
    this.arm();
  }

  private now() {
    return this.deps.clock.monotonic();
  }

  /** Something the planner heard may have moved its next report. */
  private arm() {
    this.timer.arm();
  }
}

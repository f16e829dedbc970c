import { failureWay } from '../cloud/failure-way.js';
import type { DeviceInfo, FailedDevice } from '../cloud/types.js';
import { UnsentAnswers } from '../cloud/unsent-answers.js';
import { STATUS_UNPLUGGED } from '../cloud/types.js';
import type { Settings } from '../config/schema.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import type { DeviceSource } from '../platforms/source.js';
import { logFailedDevices, logNotDelivered, type ReportOutcome, type Reporter } from '../report/reporter.js';
import type { UnpluggedLedger } from '../report/unplugged.js';
import { PlanTimer } from '../timing/plan-timer.js';
import { ReportPlanner, type PlannedReport, type ReportResult } from '../timing/planner.js';
import { Scheduler } from '../timing/scheduler.js';
import type { Clock, Timer, Timers } from '../util/clock.js';

/**
 * How long the start report waits at most for every source's first listing
 * (an adb server still starting, a tracker reconnecting): before it, a start
 * report would say "no devices" for a host whose phones are plugged (issue
 * 33). 10 s, as adb's own settle: an adb server that comes up within it (a
 * boot where both units start together) is waited for, and a host whose adb
 * stays down still tells the cloud it is alive soon. Past it, the start
 * report goes with what is listed, and /healthz
 * stays unhealthy until a report made after every listing is delivered.
 * docs/design/fleet.md states it.
 */
export const FIRST_LISTING_WAIT_MS = 10_000;

/**
 * A report that keeps failing the same way (a cloud answering every report
 * with a login page) is logged once when it starts, again when the way it
 * fails changes (src/cloud/failure-way.ts: the status code and whether a
 * gateway answered it, the network error code, TLS, a timeout), and otherwise at most once per REPORT_FAILURE_LOG_MS with
 * the count; the attempts between are at debug (issue 34, finding 7).
 * README's log section states it.
 */
export const REPORT_FAILURE_LOG_MS = 600_000;

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
 * The report loop, as a lifecycle: source events, schedule ticks and report
 * outcomes go into the planner; the one timer it keeps fires when the
 * planner says and hands the planner's plan, a complete value, to the
 * reporter, whose outcome goes back to the planner. Everything runs on the
 * injected clock and timers.
 */
export class ReportLoop {
  private readonly scheduler: Scheduler;
  private readonly planner: ReportPlanner;
  private readonly timer: PlanTimer;
  private inFlight: Promise<void> | undefined;
  /** A report is being built (from the plan handed out to its outcome): what the registry says meanwhile waits (afterReport). */
  private building = false;
  /** What afterReport held while the report was built, each once, in the order first heard. */
  private readonly held = new Set<() => void>();
  private readonly abort = new AbortController();
  private waiters: Array<(outcome: ReportOutcome | undefined) => void> = [];
  /** The answers naming devices not sent that were already logged (bounded). */
  private readonly unsentAnswers = new UnsentAnswers();
  private started = false;
  private stopping = false;
  /** The devices of the last report, health applied: the per-device rows and metrics. */
  private last: DeviceInfo[] = [];
  /** The run of failed reports going on: its kind (the failure class and way), its size, and when it was last logged. */
  private failing: { kind: string; way: string; count: number; loggedAt: number; held: number } | undefined;

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
    this.timer = new PlanTimer(this.planner, clock, (plan) => this.fire(plan));
  }

  /** Time between scheduled reports. */
  get periodMs(): number {
    return this.scheduler.periodMs();
  }

  /** The devices of the last report, UNPLUGGED ones left out. */
  get lastDevices(): readonly DeviceInfo[] {
    return this.last;
  }

  /** The devices the cloud did not store, while they are reported. */
  failedDevices(): FailedDevice[] {
    return this.planner.failed.current();
  }

  /** Starts the schedule and plans the start report. */
  start(): void {
    this.scheduler.start();
    this.started = true;
    this.timer.start();
  }

  /** Stops planning: the schedule and the timer; a report in flight goes on (settle()). */
  stop(): void {
    this.stopping = true;
    this.timer.stop();
    this.scheduler.stop();
  }

  /** Lets the report in flight finish within `limitMs`, then aborts it. */
  async settle(limitMs: number): Promise<void> {
    const { logger, clock } = this.deps;
    if (this.inFlight) {
      logger.info('waiting for the report in flight to finish');
      let timer: Timer | undefined;
      const timedOut = await Promise.race([this.inFlight.then(() => false), new Promise<boolean>((r) => (timer = clock.setTimer(() => r(true), limitMs)))]);
      timer?.cancel();
      if (timedOut) {
        // Read before the abort: what it was still waiting for when time ran out.
        const waiting = this.deps.reporter.waitingOn();
        logger.warn(
          `the report in flight did not finish within ${limitMs / 1000} s` +
            (waiting === undefined ? '' : `: it was still waiting for ${waiting}`) +
            '; it is abandoned and sent again at the next start',
        );
        this.abort.abort(new Error('the agent is stopping'));
      }
    }
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** Asks for a full report now (SIGHUP, tests); resolves with its outcome. */
  report(reason: string): Promise<ReportOutcome | undefined> {
    if (this.stopping || !this.started) return Promise.resolve(undefined);
    limited(this.deps.logger).info('report-requested', { reason }, 'a full report was asked for');
    // An operator asking (SIGHUP) is a sign that slow facts may have changed too: read them all again.
    for (const source of this.deps.sources) source.invalidateSlow();
    this.planner.requested();
    const done = new Promise<ReportOutcome | undefined>((r) => this.waiters.push(r));
    this.arm();
    return done;
  }

  /** A source's listing changed, an inventory brought news, or an action changed what a device's report says. */
  devicesChanged(): void {
    this.planner.devicesChanged(this.now());
    this.arm();
  }

  /** Whether a report is being built now: the plan handed out, its outcome not yet heard. */
  get reporting(): boolean {
    return this.building;
  }

  /**
   * Runs `heard` now, or, while a report is being built, once when it has
   * ended: the registry is written during a report (the sources note each
   * inventory's outcome), and what it says then must neither re-arm the loop
   * nor make the actions look mid-report (issue 41). The same function held
   * twice runs once.
   */
  afterReport(heard: () => void): void {
    if (this.building) this.held.add(heard);
    else heard();
  }

  /** An inventory's outcome was noted: a failure plans a retry, so look at the plan again. */
  outcomeNoted(): void {
    this.arm();
  }

  /** A source's service (re)connected: its listing counts as complete once it has settled, settleMs later. */
  sourceConnected(settleMs: number): void {
    this.planner.sourceConnected(this.now(), settleMs);
    this.deps.unplugged.sourceConnected();
    this.arm();
  }

  /**
   * A source's service came back: a restarted adb server lists the same
   * devices in the same states, so no change says that the inventories cut
   * off by the restart need redoing.
   */
  sourceResumed(): void {
    this.planner.sourceResumed(this.now());
    this.arm();
  }

  private now(): number {
    return this.deps.clock.monotonic();
  }

  /** Something the planner heard may have moved its next report. */
  private arm(): void {
    this.timer.arm();
  }

  /** Carries out the plan the timer handed out; the outcome goes back to the planner. */
  private fire(plan: PlannedReport): void {
    const { planner } = this;
    const waiters = plan.triggers.includes('requested') ? this.waiters.splice(0) : [];
    this.building = true;
    this.inFlight = this.deps.reporter
      .send(plan, this.abort.signal)
      .then((outcome) => {
        this.finished(outcome);
        for (const w of waiters) w(outcome);
      })
      .catch((err: unknown) => {
        // send() returns its failures; anything thrown here is a bug, but it must not stop the reports.
        planner.finished({ delivered: false, failure: 'transient' }, this.now());
        limited(this.deps.logger).error(
          'report-unexpected-failure',
          { err: err instanceof Error ? err.message : String(err) },
          'unexpected failure while reporting; the agent keeps running',
        );
        for (const w of waiters) w(undefined);
      })
      .finally(() => {
        this.inFlight = undefined;
        this.building = false;
        const held = [...this.held];
        this.held.clear();
        for (const heard of held) heard();
        this.arm();
      });
  }

  /** The first failure of a run, a new way of failing, or one line per REPORT_FAILURE_LOG_MS with the count; the rest at debug. */
  private notDelivered(outcome: Extract<ReportOutcome, { delivered: false }>, notes: { resendAt?: number; failures: number }, now: number): void {
    const way = failureWay(outcome.error);
    const kind = `${outcome.failure}/${way}`;
    const f = this.failing;
    const next = { resendInMs: notes.resendAt === undefined ? undefined : Math.round(notes.resendAt - now), failures: notes.failures };
    if (f && f.kind === kind && now - f.loggedAt < REPORT_FAILURE_LOG_MS) {
      f.count++;
      f.held++;
      this.deps.logger.debug({ err: outcome.error.message, failures: notes.failures }, 'report not delivered again, the same way');
      return;
    }
    const held = f && f.kind === kind ? f.held : 0;
    const was = f && f.kind !== kind ? f.way : undefined;
    this.failing = { kind, way, count: (f?.count ?? 0) + 1, loggedAt: now, held: 0 };
    logNotDelivered(this.deps.logger, outcome, next, held, was === undefined ? undefined : { was, now: way });
  }

  private finished(outcome: ReportOutcome): void {
    const now = this.now();
    const { planner } = this;
    if (outcome.body) this.last = outcome.body.devices.filter((d) => d.status !== STATUS_UNPLUGGED);
    const result: ReportResult = outcome.delivered
      ? { delivered: true, sent: outcome.sent, failedDevices: outcome.failedDevices }
      : { delivered: false, failure: outcome.failure, retryAfterMs: outcome.retryAfterMs };
    const notes = planner.finished(result, now);
    const { logger, unplugged } = this.deps;
    // A report for adb's list settling is owed only while some device reported before has not been seen since.
    if (!unplugged.awaitingSettle) planner.settleNotNeeded();
    if (!outcome.delivered) {
      if (!this.stopping) this.notDelivered(outcome, notes, now);
      return;
    }
    this.failing = undefined;
    const unsent = this.unsentAnswers.toLog(notes.unsent);
    logFailedDevices(logger, notes.newlyFailed, unsent);
    for (const udid of notes.recovered) limited(logger).info('cloud-stored-again', { udid }, `the cloud stored device ${udid} again`, udid);
  }
}

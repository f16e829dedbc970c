import type { Parts } from './build.js';
import { ReportPlanner, type ReportResult } from '../timing/planner.js';
import { logFailedDevices, logNotDelivered, type ReportOutcome } from '../report/reporter.js';
import { Scheduler } from '../timing/scheduler.js';
import { evaluateHealth, type Health } from '../status/health.js';
import { agentMetrics } from '../status/collect.js';
import { formatMetrics } from '../status/metrics.js';
import { StatusServer } from '../status/server.js';
import { agentVersion } from '../util/package.js';
import { STATUS_UNPLUGGED, type DeviceInfo } from '../cloud/types.js';
import { deviceMetrics } from '../status/device-metrics.js';
import { deviceRows, type DeviceRow } from '../status/device-rows.js';
import { Recovery, bookingGateOf } from '../recovery/recovery.js';
import { ChargeControl } from '../recovery/charge.js';
import { PortCommand } from '../recovery/port-command.js';
import { SamsungProtection } from '../recovery/samsung-protection.js';
import type { SourceChange } from '../platforms/source.js';
import { BoundedSet } from '../util/bounded-set.js';
import { limited } from '../log/limited.js';
import type { Timer } from '../util/clock.js';
import { hubPortsOf, type HubPort } from '../config/hub-ports.js';
import { chargeWaysOf, type ChargeWays } from '../config/charge-ways.js';
import { Uhubctl } from '../recovery/uhubctl.js';
import { ActionRunner } from '../actions/runner.js';

/** A part of the daemon with a lifecycle: started in order, stopped in reverse. */
interface Service {
  readonly name: string;
  start(): Promise<unknown> | void;
  stop(): Promise<unknown> | void;
}

/**
 * The daemon, as wiring: source events, schedule ticks and report outcomes
 * go into the planner; the one timer it keeps fires when the planner says,
 * and hands the planned report to the reporter, whose outcome goes back to
 * the planner. start() and stop() run an ordered list of services; the
 * constructor only builds.
 */
export class Agent {
  private readonly scheduler: Scheduler;
  private readonly planner: ReportPlanner;
  /** Recovery, charge control and Samsung protection run on it (src/actions/runner.ts). */
  private readonly actions: ActionRunner;
  private readonly recovery: Recovery;
  /** Charge pauses through the hub port (charge.ways). */
  private readonly charge: ChargeControl;
  /** Samsung's battery protection setting (charge.ways = samsung). */
  private readonly protection: SamsungProtection;
  private readonly status: StatusServer;
  private readonly services: Service[];
  private timer: Timer | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private waiters: Array<(outcome: ReportOutcome | undefined) => void> = [];
  /** failedDevices entries for devices not sent, already logged (bounded). */
  private readonly unsentLogged = new BoundedSet<string>(10_000);
  private started = false;
  private stopping = false;
  private startedAt = 0;
  /** The devices of the last report, health applied: the per-device metrics. */
  private lastDevices: DeviceInfo[] = [];
  /** The operator's map of the hub port behind each phone (settings: hubPorts), read once. */
  private readonly hubPorts: ReadonlyMap<string, HubPort>;
  /** Which phones have charge control (settings: charge.ways), read once. */
  private readonly chargeWays: ChargeWays;

  constructor(
    private readonly parts: Parts,
    private readonly nodeId: string,
  ) {
    const { settings, logger, registry, clock } = parts;
    this.hubPorts = hubPortsOf(settings.hubPorts);
    this.chargeWays = chargeWaysOf(settings.charge.ways);
    this.scheduler = new Scheduler({
      expression: settings.schedule,
      jitterMs: settings.jitterSeconds * 1000,
      nodeId,
      onTick: () => {
        this.planner.scheduleTick(this.now());
        this.arm();
      },
      logger,
      clock,
    });
    const periodMs = this.scheduler.periodMs();
    this.planner = new ReportPlanner(registry, {
      periodMs,
      jitterMs: settings.jitterSeconds * 1000,
      debounceMs: settings.changeDebounceMs,
      // A fleet restarted together spreads its first reports over the jitter (at most a period).
      startSpreadMs: Math.min(settings.jitterSeconds * 1000, periodMs),
      random: () => clock.random(),
    });
    // One gate for recovery and charge control: the host's status requests are bounded together.
    const gate = bookingGateOf(settings, clock);
    // One runner for the actions: the gate's questions, the work in flight, the news for the cloud.
    this.actions = new ActionRunner({
      clock,
      gate,
      booking: parts.booking,
      onChange: () => {
        this.planner.devicesChanged(this.now());
        this.arm();
      },
    });
    const runner = this.actions;
    const uhubctl = new Uhubctl(settings.recovery.powerCycleCommand);
    this.recovery = new Recovery({
      runner,
      adb: parts.android.adb,
      settings,
      stats: parts.stats,
      logger,
      registry,
      clock,
      booking: parts.booking,
      hubPorts: this.hubPorts,
      gate,
      ...(settings.recovery.powerCycle && { portPower: uhubctl }),
    });
    // Built even with no phone listed in charge.ways: ports a crashed run left
    // off must be switched on after charge control was turned off too.
    this.charge = new ChargeControl({
      runner,
      registry,
      settings,
      hubPorts: this.hubPorts,
      ports: { uhubctl, ...(settings.charge.command && { command: new PortCommand(settings.charge.command) }) },
      gate,
      booking: parts.booking,
      stats: parts.stats,
      logger,
      clock,
      kept: parts.pausedPorts,
    });
    this.protection = new SamsungProtection({
      runner,
      adb: parts.android.adb,
      registry,
      settings,
      gate,
      booking: parts.booking,
      stats: parts.stats,
      logger,
      clock,
    });
    this.status = new StatusServer(settings.statusListen, this, logger);
    this.services = [
      { name: 'status', start: () => this.status.start(), stop: () => this.status.stop() },
      ...parts.sources.map((source) => ({ name: source.platform, start: () => this.startSource(source), stop: () => source.stop() })),
      { name: 'recovery', start: () => this.recovery.start(), stop: () => this.recovery.stop() },
      { name: 'charge', start: () => this.charge.start(), stop: () => this.charge.stop() },
      { name: 'protection', start: () => this.protection.start(), stop: () => this.protection.stop() },
      { name: 'schedule', start: () => this.scheduler.start(), stop: () => this.scheduler.stop() },
    ];
  }

  async start(): Promise<void> {
    const { settings, logger, registry, unplugged, reported, android } = this.parts;
    // Devices an earlier run reported and that are not back by the first report go out as UNPLUGGED.
    unplugged.seed(reported.load());
    this.startedAt = this.parts.clock.wall();
    // A failed inventory plans a retry: look at the plan again.
    registry.on('outcome', () => {
      this.actions.devicesChanged();
      this.arm();
    });
    for (const service of this.services) await service.start();
    this.started = true;
    logger.info({ nodeId: this.nodeId, adb: android.adb.label, schedule: settings.schedule, jitterSeconds: settings.jitterSeconds }, 'device-agent started');
    this.planner.start(this.now());
    this.arm();
  }

  private async startSource(source: Parts['sources'][number]): Promise<void> {
    const { unplugged } = this.parts;
    if (source.platform === 'android') {
      source.on('connected', () => {
        this.planner.adbConnected(this.now());
        unplugged.adbConnected();
        this.arm();
      });
      // A restarted adb server lists the same devices in the same states, so no
      // change says that the inventories cut off by the restart need redoing.
      source.on('resumed', () => {
        this.planner.adbResumed(this.now());
        this.arm();
      });
    }
    await source.start();
    // Devices found at start go into the first report through the listing,
    // not as change events: the planner hears only what came after.
    source.on('change', (changes) => this.onChange(changes));
    source.on('news', () => {
      this.planner.devicesChanged(this.now());
      this.arm();
    });
  }

  /** Stops the services in reverse order, lets an in-flight report finish (bounded), then aborts it. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const { logger, settings } = this.parts;
    this.timer?.cancel();
    for (const service of [...this.services].reverse()) await service.stop();
    if (this.inFlight) {
      logger.info('waiting for the report in flight to finish');
      const limit = settings.shutdownTimeoutSeconds * 1000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([this.inFlight.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), limit)))]);
      clearTimeout(timer);
      if (timedOut) {
        logger.warn(`the report in flight did not finish within ${limit / 1000} s; it is abandoned and sent again at the next start`);
        this.abort.abort(new Error('the agent is stopping'));
      }
    }
    for (const w of this.waiters.splice(0)) w(undefined);
    logger.info('device-agent stopped');
  }

  /** Asks for a full report now (SIGHUP, tests); resolves with its outcome. */
  report(reason: string): Promise<ReportOutcome | undefined> {
    if (this.stopping || !this.started) return Promise.resolve(undefined);
    limited(this.parts.logger).info('report-requested', { reason }, 'a full report was asked for');
    // An operator asking (SIGHUP) is a sign that slow facts may have changed too: read them all again.
    for (const source of this.parts.sources) source.invalidateSlow();
    this.planner.requested();
    const done = new Promise<ReportOutcome | undefined>((r) => this.waiters.push(r));
    this.arm();
    return done;
  }

  health(): Health {
    const { stats, settings, android } = this.parts;
    const interval = this.scheduler.periodMs();
    return evaluateHealth({
      now: this.parts.clock.wall(),
      startedAt: this.startedAt,
      lastSuccessAt: stats.lastSuccessAt,
      lastFailure: stats.lastFailure,
      trackerAlive: android.source.alive,
      adbError: android.source.lastError,
      // Two missed schedules (with jitter and a retry chain) before it counts as unhealthy.
      maxReportAgeMs: Math.max(2 * interval + settings.jitterSeconds * 1000 + settings.requestTimeoutSeconds * 1000, 120_000),
    });
  }

  /** The devices of the last report as rows (list's columns, the per-device metrics). */
  rows(): DeviceRow[] {
    return deviceRows(this.lastDevices, this.parts.registry, this.hubPorts, this.chargeWays);
  }

  metrics(): string {
    const { stats, android } = this.parts;
    return formatMetrics([
      ...agentMetrics({
        stats,
        trackerAlive: android.source.alive,
        adbRoundTripMs: android.source.roundTripMs,
        failedDevices: this.planner.failed.current(),
        probes: android.prober.counters,
        duplicateSerials: android.source.duplicateSerials,
        sharedUdids: android.source.sharedUdids,
        version: agentVersion,
        nodeId: this.nodeId,
      }),
      ...deviceMetrics(this.rows()),
    ]);
  }

  private now(): number {
    return this.parts.clock.monotonic();
  }

  private onChange(changes: SourceChange[]): void {
    for (const c of changes)
      limited(this.parts.logger).info('device-changed', { serial: c.serial, from: c.from ?? 'absent', to: c.to ?? 'unplugged' }, 'device changed', c.serial);
    this.planner.devicesChanged(this.now());
    this.actions.devicesChanged();
    this.arm();
  }

  /** Sets the one timer to the planner's next report time. */
  private arm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.stopping || !this.started) return;
    const now = this.now();
    const at = this.planner.nextAt(now);
    if (at === undefined) return;
    this.timer = this.parts.clock.setTimer(() => this.fire(), Math.min(2 ** 31 - 1, Math.max(0, Math.ceil(at - now))));
  }

  private fire(): void {
    const { planner } = this;
    if (this.stopping) return;
    const now = this.now();
    const plan = planner.take(now);
    if (!plan) return this.arm();
    const waiters = plan.triggers.includes('requested') ? this.waiters.splice(0) : [];
    const { reporter, sources, clock } = this.parts;
    // Absent means gone only once every source has listed its devices and adb had time to enumerate USB.
    const complete = sources.every((s) => s.listed) && planner.adbSettled(now);
    this.inFlight = reporter
      .send(
        {
          request: { refresh: plan.refresh, hold: plan.hold },
          reason: plan.triggers.join(', '),
          complete,
          // A retry chain never outlives the next scheduled report.
          deadline: this.scheduler.nextRunAt() ?? clock.wall() + 60_000,
        },
        this.abort.signal,
      )
      .then((outcome) => {
        this.finished(outcome);
        for (const w of waiters) w(outcome);
      })
      .catch((err: unknown) => {
        // send() returns its failures; anything thrown here is a bug, but it must not stop the reports.
        planner.finished({ delivered: false, failure: 'transient' }, this.now());
        limited(this.parts.logger).error(
          'report-unexpected-failure',
          { err: err instanceof Error ? err.message : String(err) },
          'unexpected failure while reporting; the agent keeps running',
        );
        for (const w of waiters) w(undefined);
      })
      .finally(() => {
        this.inFlight = undefined;
        this.arm();
      });
  }

  private finished(outcome: ReportOutcome): void {
    const now = this.now();
    const { planner } = this;
    if (outcome.body) this.lastDevices = outcome.body.devices.filter((d) => d.status !== STATUS_UNPLUGGED);
    const result: ReportResult = outcome.delivered
      ? { delivered: true, sent: outcome.sent, failedDevices: outcome.failedDevices }
      : { delivered: false, failure: outcome.failure, retryAfterMs: outcome.retryAfterMs };
    const notes = planner.finished(result, now);
    const { logger, unplugged } = this.parts;
    // A report for adb's list settling is owed only while some device reported before has not been seen since.
    if (!unplugged.awaitingAdb) planner.adbSettleNotNeeded();
    if (!outcome.delivered) {
      if (!this.stopping)
        logNotDelivered(logger, outcome, { resendInMs: notes.resendAt === undefined ? undefined : Math.round(notes.resendAt - now), failures: notes.failures });
      return;
    }
    const unsent = notes.unsent.filter((f) => !this.unsentLogged.has(`${f.udid}\n${f.message}`));
    for (const f of unsent) this.unsentLogged.add(`${f.udid}\n${f.message}`);
    logFailedDevices(logger, notes.newlyFailed, unsent);
    for (const udid of notes.recovered) limited(logger).info('cloud-stored-again', { udid }, `the cloud stored device ${udid} again`, udid);
  }
}

import { performance } from 'node:perf_hooks';
import type { DeviceChange } from '../platforms/android/adb/device-watcher.js';
import { DeviceWatcher } from '../platforms/android/adb/device-watcher.js';
import type { Parts } from './parts.js';
import { ReportPlanner, type ReportResult } from '../timing/planner.js';
import { logFailedDevices, logNotDelivered, Reporter, type ReportOutcome, type ReportSink } from '../report/reporter.js';
import { Scheduler } from '../timing/scheduler.js';
import { evaluateHealth, type Health } from '../status/health.js';
import { agentMetrics } from '../status/collect.js';
import { formatMetrics } from '../status/metrics.js';
import { StatusServer } from '../status/server.js';
import { agentVersion } from '../util/package.js';
import { buildIosParts, type IosParts } from '../platforms/ios/setup.js';
import type { LongDevice } from '../platforms/android/adb/devices-long.js';
import type { DeviceInfo } from '../cloud/types.js';
import { deviceMetrics } from '../status/device-metrics.js';
import { deviceRows, type DeviceRow } from '../status/device-rows.js';
import { checkHealth, rowContext } from './parts.js';
import { Recovery } from '../recovery/recovery.js';

/** The planner's clock: monotonic, so a wall-clock step neither stalls nor rushes a report. */
const monotonic = (): number => performance.now();

/**
 * The daemon, as wiring: adb events, schedule ticks and report outcomes go
 * into the planner; the one timer it keeps fires when the planner says, and
 * runs the report the planner hands out. start() and stop() are the
 * lifecycle; the constructor only assigns.
 */
export class Agent {
  private watcher: DeviceWatcher | undefined;
  /** iPhones through usbmuxd, when iOS is on. */
  private ios: IosParts | undefined;
  private scheduler: Scheduler | undefined;
  private reporter: Reporter | undefined;
  private planner: ReportPlanner | undefined;
  private status: StatusServer | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private waiters: Array<(outcome: ReportOutcome | undefined) => void> = [];
  /** failedDevices entries for devices not sent, already logged (bounded). */
  private readonly unsentLogged = new Set<string>();
  private stopping = false;
  private startedAt = 0;
  /** The devices of the last report, health applied: the per-device metrics. */
  private lastDevices: DeviceInfo[] = [];
  /** adb's long listing (usb path, transport id), refreshed beside each collection. */
  private topology: ReadonlyMap<string, LongDevice> = new Map();
  private topologyInFlight = false;
  private recovery: Recovery | undefined;

  constructor(
    private readonly parts: Parts,
    private readonly nodeId: string,
    private readonly cloud: ReportSink,
  ) {}

  get deviceWatcher(): DeviceWatcher | undefined {
    return this.watcher;
  }

  async start(): Promise<void> {
    const { parts } = this;
    const { settings, logger } = parts;
    this.watcher = new DeviceWatcher(parts.adb, { reconcileMs: settings.reconcileSeconds * 1000, logger });
    this.scheduler = new Scheduler({
      expression: settings.schedule,
      jitterMs: settings.jitterSeconds * 1000,
      onTick: () => {
        this.planner?.scheduleTick();
        this.arm();
      },
      logger,
    });
    const planner = new ReportPlanner({
      periodMs: this.scheduler.periodMs(),
      jitterMs: settings.jitterSeconds * 1000,
      debounceMs: settings.changeDebounceMs,
    });
    this.planner = planner;
    parts.collector.onProbe = (serial, ok) => {
      planner.probeOutcome(serial, ok, monotonic());
      this.recovery?.noteShell(serial, ok);
      this.arm();
    };
    this.reporter = new Reporter({
      nodeId: this.nodeId,
      cloud: this.cloud,
      collectDevices: (request) => this.collectDevices(request),
      collectMachine: () => parts.machine.collect(),
      unplugged: parts.unplugged,
      reported: parts.reported,
      // Absent means gone only once adb has listed its devices and had time to enumerate USB.
      adbListed: () => (this.watcher?.listed ?? false) && planner.adbSettled(monotonic()),
      stats: parts.stats,
      logger,
      // A retry chain never outlives the next scheduled report.
      deadline: () => this.scheduler?.nextRunAt() ?? Date.now() + 60_000,
    });
    // Devices an earlier run reported and that are not back by the first report go out as UNPLUGGED.
    parts.unplugged.seed(parts.reported.load());
    this.startedAt = Date.now();
    this.status = new StatusServer(settings.statusListen, this, logger);
    await this.status.start();
    this.watcher.on('connected', () => {
      planner.adbConnected(monotonic());
      parts.unplugged.adbConnected();
      this.arm();
    });
    await this.watcher.start();
    // Devices found at start go into the first report through the watcher's
    // list, not as change events: the planner hears only what came after.
    for (const [serial, state] of this.watcher.devices) planner.deviceChanged(serial, state, monotonic());
    // iPhones (usbmuxd) beside adb's devices: their changes reach the planner the same way.
    this.ios = buildIosParts(settings, process.env, logger);
    await this.ios?.watcher.start();
    this.ios?.watcher.on('change', (changes: DeviceChange[]) => this.onChange(changes));
    this.watcher.on('change', (changes: DeviceChange[]) => this.onChange(changes));
    this.watcher.on('change', () => this.recovery?.devicesChanged());
    this.recovery = new Recovery({ adb: parts.adb, settings, stats: parts.stats, logger, devices: () => this.watcher?.devices ?? new Map() });
    this.recovery.start();
    // A restarted adb server lists the same devices in the same states, so no
    // change says that the inventories cut off by the restart need redoing.
    this.watcher.on('resumed', () => {
      planner.adbResumed(monotonic());
      this.arm();
    });
    this.scheduler.start();
    logger.info(
      { nodeId: this.nodeId, adb: parts.adb.label, schedule: settings.schedule, jitterSeconds: settings.jitterSeconds },
      'device-agent started',
    );
    planner.start();
    this.arm();
  }

  /** Stops the schedule and tracking, lets an in-flight report finish (bounded), then aborts it. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const { logger, settings } = this.parts;
    clearTimeout(this.timer);
    await this.scheduler?.stop();
    this.recovery?.stop();
    this.watcher?.stop();
    this.ios?.watcher.stop();
    await this.status?.stop();
    if (this.inFlight) {
      logger.info('waiting for the report in flight to finish');
      const limit = settings.shutdownTimeoutSeconds * 1000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        this.inFlight.then(() => false),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), limit))),
      ]);
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
    if (this.stopping || !this.planner) return Promise.resolve(undefined);
    this.parts.logger.info({ reason }, 'a full report was asked for');
    // An operator asking (SIGHUP) is a sign that slow facts may have changed too: read them all again.
    for (const serial of this.watcher?.devices.keys() ?? []) this.parts.prober.invalidateSlow(serial);
    this.planner.requested();
    const done = new Promise<ReportOutcome | undefined>((r) => this.waiters.push(r));
    this.arm();
    return done;
  }

  health(): Health {
    const { stats, settings } = this.parts;
    const interval = this.scheduler?.periodMs() ?? 60_000;
    return evaluateHealth({
      now: Date.now(),
      startedAt: this.startedAt,
      lastSuccessAt: stats.lastSuccessAt,
      lastFailure: stats.lastFailure,
      trackerAlive: this.watcher?.alive ?? false,
      adbError: this.watcher?.lastError,
      // Two missed schedules (with jitter and a retry chain) before it counts as unhealthy.
      maxReportAgeMs: Math.max(2 * interval + settings.jitterSeconds * 1000 + settings.requestTimeoutSeconds * 1000, 120_000),
    });
  }

  /** The devices of the last report as rows (list's columns, the per-device metrics). */
  rows(): DeviceRow[] {
    return deviceRows(this.lastDevices, rowContext(this.parts, this.topology, (udid) => this.ios?.collector.inventoriedAt(udid)));
  }

  metrics(): string {
    return formatMetrics([
      ...agentMetrics({
        stats: this.parts.stats,
        trackerAlive: this.watcher?.alive ?? false,
        adbRoundTripMs: this.watcher?.lastRoundTripMs,
        failedDevices: this.planner?.failed.current() ?? [],
        probes: this.parts.prober.counters,
        version: agentVersion,
        nodeId: this.nodeId,
      }),
      ...deviceMetrics(this.rows()),
    ]);
  }

  private collectDevices(request: Parameters<Reporter['send']>[0]) {
    const watcher = this.watcher!;
    const t0 = Date.now();
    const ios = this.ios;
    this.refreshTopology();
    // iPhones every report too: one lockdown session each, identity only once per connection (IosCollector).
    return Promise.all([this.parts.collector.collect(watcher.devices, request), ios ? ios.collector.collect(ios.watcher) : []]).then(
      ([android, iphones]) => {
        const infos = checkHealth(this.parts, [...android, ...iphones]);
        this.lastDevices = infos;
        this.parts.stats.noteDevices(watcher.devices.values());
        this.parts.logger.debug({ devices: infos.length, ms: Date.now() - t0 }, 'inventory collected');
        return infos;
      },
    );
  }

  /**
   * One long listing at a time, not awaited: a slow adb server delays the
   * usb column of the metrics, never a report.
   */
  private refreshTopology(): void {
    if (this.topologyInFlight) return;
    this.topologyInFlight = true;
    this.parts.adb
      .listDevicesLong()
      .then(
        (list) => (this.topology = new Map(list.map((d) => [d.serial, d]))),
        (err: unknown) => this.parts.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'adb long device listing failed; usb paths stay as they were'),
      )
      .finally(() => (this.topologyInFlight = false));
  }

  private onChange(changes: DeviceChange[]): void {
    const now = monotonic();
    for (const c of changes) {
      this.parts.logger.info({ serial: c.serial, from: c.from ?? 'absent', to: c.to ?? 'unplugged' }, 'device changed');
      this.planner?.deviceChanged(c.serial, c.to, now);
    }
    this.arm();
  }

  /** Sets the one timer to the planner's next report time. */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopping || !this.planner) return;
    const now = monotonic();
    const at = this.planner.nextAt(now);
    if (at === undefined) return;
    this.timer = setTimeout(() => this.fire(), Math.min(2 ** 31 - 1, Math.max(0, Math.ceil(at - now))));
  }

  private fire(): void {
    const planner = this.planner;
    const reporter = this.reporter;
    if (this.stopping || !planner || !reporter) return;
    const plan = planner.take(monotonic());
    if (!plan) return this.arm();
    const waiters = plan.triggers.includes('requested') ? this.waiters.splice(0) : [];
    const reason = plan.triggers.join(', ');
    this.inFlight = reporter
      .send({ refresh: plan.refresh, hold: plan.hold }, reason, this.abort.signal)
      .then((outcome) => {
        this.finished(planner, outcome);
        for (const w of waiters) w(outcome);
      })
      .catch((err: unknown) => {
        // send() returns its failures; anything thrown here is a bug, but it must not stop the reports.
        planner.finished({ delivered: false, failure: 'transient' }, monotonic());
        this.parts.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'unexpected failure while reporting; the agent keeps running');
        for (const w of waiters) w(undefined);
      })
      .finally(() => {
        this.inFlight = undefined;
        this.arm();
      });
  }

  private finished(planner: ReportPlanner, outcome: ReportOutcome): void {
    const now = monotonic();
    const result: ReportResult = outcome.delivered
      ? { delivered: true, sent: outcome.sent, failedDevices: outcome.failedDevices }
      : { delivered: false, failure: outcome.failure };
    const notes = planner.finished(result, now);
    const { logger, unplugged } = this.parts;
    // A report for adb's list settling is owed only while some device reported before has not been seen since.
    if (!unplugged.awaitingAdb) planner.adbSettleNotNeeded();
    if (!outcome.delivered) {
      if (!this.stopping) logNotDelivered(logger, outcome.error, notes.resendAt === undefined ? undefined : Math.round(notes.resendAt - now));
      return;
    }
    const unsent = notes.unsent.filter((f) => !this.unsentLogged.has(`${f.udid}\n${f.message}`));
    if (this.unsentLogged.size > 1000) this.unsentLogged.clear();
    for (const f of unsent) this.unsentLogged.add(`${f.udid}\n${f.message}`);
    logFailedDevices(logger, notes.newlyFailed, unsent);
    for (const udid of notes.recovered) logger.info({ udid }, `the cloud stored device ${udid} again`);
  }
}

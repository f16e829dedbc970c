import type { DeviceChange } from '../adb/device-watcher.js';
import { DeviceWatcher } from '../adb/device-watcher.js';
import type { Refresh } from './collector.js';
import { Debouncer } from './debounce.js';
import type { Parts } from './parts.js';
import { Reporter, type ReportSink } from './reporter.js';
import { Scheduler } from './scheduler.js';
import { evaluateHealth, type Health } from '../status/health.js';
import { agentMetrics } from '../status/collect.js';
import { formatMetrics } from '../status/metrics.js';
import { StatusServer } from '../status/server.js';
import { agentVersion } from '../util/package.js';
import { buildIosParts, type IosParts } from '../ios/setup.js';

// A device event is reported within 2 s: gathered for changeDebounceMs after
// the last event, but never longer than this after the first.
const CHANGE_MAX_WAIT_MS = 1500;
// A device whose inventory failed or was cut short is asked again after
// 10 s, then less and less often while it keeps failing.
const INVENTORY_RETRY_MIN_MS = 10_000;
const INVENTORY_RETRY_MAX_MS = 5 * 60_000;

/**
 * The daemon: tracks devices, reports on the schedule and soon after device
 * changes, and re-sends what failed. start() and stop() are the lifecycle;
 * the constructor only assigns.
 */
export class Agent {
  private watcher: DeviceWatcher | undefined;
  // iOS (issue 14): usbmuxd watcher + collector beside adb's; re-wired into the planner at merge.
  private ios: IosParts | undefined;
  private scheduler: Scheduler | undefined;
  private reporter: Reporter | undefined;
  private debouncer: Debouncer | undefined;
  private followUp: { timer: NodeJS.Timeout; at: number } | undefined;
  private changed = new Set<string>();
  private stopping = false;
  private inventoryRetryMs = 0;
  private status: StatusServer | undefined;
  private startedAt = 0;

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
      onTick: () => void this.report('schedule', 'all'),
      logger,
    });
    this.reporter = new Reporter({
      nodeId: this.nodeId,
      cloud: this.cloud,
      collectDevices: (refresh) => this.collectDevices(refresh),
      collectMachine: () => parts.machine.collect(),
      failed: parts.failed,
      unplugged: parts.unplugged,
      stats: parts.stats,
      logger,
      deadline: () => this.deadline(),
      onFollowUp: (at, reason) => this.scheduleFollowUp(at, reason),
    });
    this.debouncer = new Debouncer(settings.changeDebounceMs, CHANGE_MAX_WAIT_MS, () => {
      const refresh = this.changed;
      this.changed = new Set();
      void this.report('devices changed', refresh);
    });
    this.startedAt = Date.now();
    this.status = new StatusServer(settings.statusListen, this, logger);
    await this.status.start();
    await this.watcher.start();
    this.ios = buildIosParts(settings, process.env, logger);
    await this.ios?.watcher.start();
    this.ios?.watcher.on('change', (changes: DeviceChange[]) => this.onChange(changes));
    // Listening only now: the devices found at start go into the start report
    // below, not into a second, change-triggered inventory of every device.
    this.watcher.on('change', (changes: DeviceChange[]) => this.onChange(changes));
    // A restarted adb server lists the same devices in the same states, so no
    // change says that the inventories cut off by the restart need redoing.
    this.watcher.on('resumed', () => void this.report('adb tracking resumed', 'all'));
    this.scheduler.start();
    logger.info(
      { nodeId: this.nodeId, adb: parts.adb.label, schedule: settings.schedule, jitterSeconds: settings.jitterSeconds },
      'device-agent started',
    );
    void this.report('start', 'all');
  }

  /** Stops the schedule and tracking, lets an in-flight report finish (bounded). */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const { logger, settings } = this.parts;
    this.debouncer?.cancel();
    clearTimeout(this.followUp?.timer);
    await this.scheduler?.stop();
    this.watcher?.stop();
    this.ios?.watcher.stop();
    await this.status?.stop();
    if (this.reporter?.busy) {
      logger.info('waiting for the report in flight to finish');
      const limit = settings.shutdownTimeoutSeconds * 1000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        this.reporter.idle().then(() => false),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), limit))),
      ]);
      clearTimeout(timer);
      if (timedOut) logger.warn(`the report in flight did not finish within ${limit / 1000} s; stopping anyway`);
    }
    logger.info('device-agent stopped');
  }

  health(): Health {
    const { stats, settings } = this.parts;
    const interval = this.scheduler?.intervalMs() ?? 60_000;
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

  metrics(): string {
    return formatMetrics(
      agentMetrics({
        stats: this.parts.stats,
        trackerAlive: this.watcher?.alive ?? false,
        adbRoundTripMs: this.watcher?.lastRoundTripMs,
        failedDevices: this.parts.failed.current(),
        probes: this.parts.prober.counters,
        version: agentVersion,
        nodeId: this.nodeId,
      }),
    );
  }

  /** Asks for a report; exposed for tests and the status endpoint. */
  report(reason: string, refresh: Refresh): Promise<unknown> {
    if (this.stopping || !this.reporter) return Promise.resolve();
    return this.reporter.request(reason, refresh);
  }

  private async collectDevices(refresh: Refresh) {
    const watcher = this.watcher!;
    const t0 = Date.now();
    // iOS (issue 14): iPhones are probed every report for now (no refresh tiers yet).
    const ios = this.ios;
    const [android, iphones] = await Promise.all([
      this.parts.collector.collect(watcher.devices, refresh),
      ios ? ios.collector.collect(ios.watcher) : [],
    ]);
    const infos = [...android, ...iphones];
    this.parts.stats.noteDevices(watcher.devices.values());
    this.parts.logger.debug({ devices: infos.length, ms: Date.now() - t0 }, 'inventory collected');
    if (this.parts.collector.failing.length) {
      this.inventoryRetryMs = Math.min(INVENTORY_RETRY_MAX_MS, this.inventoryRetryMs ? this.inventoryRetryMs * 2 : INVENTORY_RETRY_MIN_MS);
      this.scheduleFollowUp(Date.now() + this.inventoryRetryMs, 'inventory retry');
    } else {
      this.inventoryRetryMs = 0;
    }
    return infos;
  }

  private onChange(changes: DeviceChange[]): void {
    for (const c of changes) {
      this.parts.logger.info({ serial: c.serial, from: c.from ?? 'absent', to: c.to ?? 'unplugged' }, 'device changed');
      if (c.to !== undefined) this.changed.add(c.serial);
    }
    this.debouncer?.trigger();
  }

  private deadline(): number {
    // A retry chain never outlives the next scheduled report.
    const next = this.scheduler?.nextRunAt();
    return next ?? Date.now() + 60_000;
  }

  /** What a follow-up report probes afresh: only the devices it is about, where it is about some. */
  private followUpRefresh(reason: string): Refresh {
    if (reason === 'failed-device retry') return new Set(this.parts.failed.dueForRetry(Date.now()));
    if (reason === 'inventory retry') return new Set(this.parts.collector.failing);
    return 'all';
  }

  private scheduleFollowUp(at: number, reason: string): void {
    if (this.stopping) return;
    if (this.followUp && this.followUp.at <= at) return;
    clearTimeout(this.followUp?.timer);
    const timer = setTimeout(
      () => {
        this.followUp = undefined;
        void this.report(reason, this.followUpRefresh(reason));
      },
      Math.max(0, at - Date.now()),
    );
    this.followUp = { timer, at };
  }
}

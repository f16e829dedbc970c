import type { DeviceInfo, FailedDevice } from '../cloud/types.js';
import type { HubPort } from '../config/hub-ports.js';
import type { Settings } from '../config/schema.js';
import type { DeviceSource, PlatformName } from '../platforms/source.js';
import type { Clock } from '../util/clock.js';
import type { MetricSource } from '../util/metric.js';
import { agentVersion } from '../util/package.js';
import { agentMetrics } from './collect.js';
import { deviceMetrics } from './device-metrics.js';
import { deviceRows, type RowMapping, type RowOptions, type RowRecords } from './device-rows.js';
import { evaluateHealth } from './health.js';
import { Exposition } from './metrics.js';
import type { StatusSource } from './server.js';
import type { AgentStats } from '../stats/agent-stats.js';
import { pageOf, type DeviceFeature } from '../devices/feature.js';
import { phonePage, rackPage } from './page-data.js';

/** What the views read of the report loop: the devices of the last report, the cloud's refusals, the period. */
export interface ReportView {
  readonly lastDevices: readonly DeviceInfo[];
  failedDevices(): FailedDevice[];
  readonly periodMs: number;
}

export interface StatusViewsDeps {
  nodeId: string;
  settings: Pick<Settings, 'jitterSeconds' | 'requestTimeoutSeconds'>;
  stats: AgentStats;
  registry: RowRecords;
  /** Every source: what keeps each from reporting (health) and its own series. */
  sources: ReadonlyArray<Pick<DeviceSource, 'problems' | 'metrics'>>;
  /** More series, beside the sources' (none yet; an action's counters could be one). */
  metricSources?: readonly MetricSource[];
  report: ReportView;
  hubPorts: ReadonlyMap<string, HubPort>;
  /** What the lab calls its hubs (hubNames). */
  hubNames?: ReadonlyMap<string, string>;
  /** Each platform's names, for the rows. */
  platformNames?: readonly PlatformName[];
  /** The actions' look-up of ports and ways, for the rows. */
  mapping?: RowMapping;
  /** The registered features: what each adds to the rows and their per-device series. */
  features: readonly DeviceFeature[];
  /** What the platforms read of a device that no DeviceInfo field carries, for the rows (src/platforms/facts.ts). */
  facts?: RowOptions['facts'];
  clock: Clock;
}

/** /healthz, /metrics and the device rows, read from the registry, the stats and the sources: no state of their own. */
export class StatusViews implements StatusSource {
  private startedAt = 0;
  private readonly exposition = new Exposition();

  constructor(private readonly deps: StatusViewsDeps) {}

  /** The daemon started (wall ms): /healthz counts the wait for a first report from it. */
  noteStart(at: number) {
    this.startedAt = at;
    // The process series (prom-client's) watch the event loop and the garbage collector from the start on.
    this.exposition.withProcessSeries();
  }

  health() {
    const { stats, settings, report, sources, clock } = this.deps;
    const interval = report.periodMs;
    return evaluateHealth({
      now: clock.wall(),
      startedAt: this.startedAt,
      lastSuccessAt: stats.lastSuccessAt,
      lastFailure: stats.lastFailure,
      sourceProblems: sources.flatMap((s) => s.problems?.() ?? []),
      listingDelivered: stats.listingDelivered,
      refusal: stats.refusal,
      // Two missed schedules (with jitter and a retry chain) before it counts as unhealthy.
      maxReportAgeMs: Math.max(2 * interval + settings.jitterSeconds * 1000 + settings.requestTimeoutSeconds * 1000, 120_000),
    });
  }

  /** The devices of the last report as rows (list's columns, the per-device metrics); the one of this udid only, when given. */
  rows(udid?: string) {
    const { report, registry, hubPorts, platformNames } = this.deps;
    const devices = udid === undefined ? report.lastDevices : report.lastDevices.filter((d) => d.udid === udid);
    // The mapping, features, facts and hub names go as the views were given them.
    return deviceRows(devices, registry, { ...this.deps, ports: hubPorts, names: platformNames });
  }

  /** What the rack's data is made of changes with this: each report that ends (its devices, its outcome), and the minute (in-service time, health). */
  pageVersion() {
    const { stats, clock } = this.deps;
    return `${stats.reportsSent} ${stats.reportsFailed} ${Math.floor(clock.wall() / 60_000)}`;
  }

  /** The status page's data (src/status/page-data.ts): the rack, or the page of the phone of this udid (undefined when no row is). */
  page(udid?: string) {
    const { features, stats, hubNames = new Map<string, string>() } = this.deps;
    const rows = this.rows(udid);
    const health = this.health();
    const failed = stats.lastFailureAt !== undefined && stats.lastFailureAt > (stats.lastSuccessAt ?? 0);
    const host = {
      node: this.deps.nodeId,
      agentVersion,
      healthy: health.ok,
      problems: health.brief,
      ...(stats.lastSuccessAt !== undefined && { lastReportAt: stats.lastSuccessAt }),
      ...(failed && { reportFailedAt: stats.lastFailureAt }),
    };
    if (udid === undefined)
      return rackPage(
        rows,
        rows.map((r) => pageOf(features, r, false)),
        hubNames,
        host,
      );
    const row = rows.find((r) => r.udid === udid);
    return row && phonePage(row, pageOf(features, row, true), host);
  }

  metrics() {
    const { stats, report, sources, metricSources = [], features } = this.deps;
    const rows = this.rows();
    return this.exposition.text([
      ...agentMetrics({ stats, failedDevices: report.failedDevices(), version: agentVersion, nodeId: this.deps.nodeId }),
      ...sources.flatMap((s) => s.metrics?.() ?? []),
      ...metricSources.flatMap((m) => m.metrics()),
      ...features.flatMap((f) => f.tallies?.(rows) ?? []),
      ...deviceMetrics(rows, features),
    ]);
  }
}

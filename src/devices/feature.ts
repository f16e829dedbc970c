// The one contract through which a feature adds to the report and the views, so that the platforms, the report and the
// views name no feature. While a report is built a hook writes only its feature's facets, and `owe` the presence ledger.
import type { DeviceInfo, FailedDevice } from '../cloud/types.js';
import type { Metric, MetricSource } from '../util/metric.js';
import type { AgentStats } from '../stats/agent-stats.js';
import type { CounterKey } from '../stats/counter.js';
import type { CarriedKinds } from './presence.js';
import type { Platform } from './record.js';
import type { DeviceSnapshot } from './snapshot.js';
import type { DeviceGauge, DeviceRow, FeatureColumn, RowField } from './feature-view.js';
import { withVerdicts } from './compose.js';
import type { Timeline } from './timeline.js';

/** A feature's hooks into the report and the views (its action and doctor lines: src/features/context.ts). */
export interface DeviceFeature {
  /** A plain name, for logs and tests. */
  readonly name: string;
  /** Starts what the feature follows on its own (a log, a timer), with the daemon's services, before the sources. */
  start?(): Promise<void> | void;
  /** Stops it, in reverse order with the daemon's services. */
  stop?(): Promise<void> | void;
  /** What the feature says of this listed device in its message, or nothing; `peers`, the records its source lists now. */
  notes?(device: DeviceSnapshot, peers: readonly DeviceSnapshot[]): ReadonlyArray<string | undefined>;
  /**
   * Once per report, before it asks the presence ledger: the devices the feature owes the cloud though no source lists
   * them, as its whole word. `listing.absentIsGone(udid)`: whether that device, absent, would be called gone.
   */
  owe?(listing: Listing): void;
  /**
   * The report's freshly read devices, before any annotate pass (not a device held off its source: its last reading is
   * not new), for a feature that judges readings (health); in registration order.
   */
  judge?(devices: readonly DeviceInfo[], sources: Judging): DeviceInfo[];
  /**
   * The report's devices once sources and judges are done, before any annotate pass: for a feature that publishes a fact
   * of them (a facet) that other features' annotate passes read, so that no order of registration matters.
   */
  observe?(devices: readonly DeviceInfo[], carried: CarriedKinds): void;
  /**
   * The report's devices once sources and judges are done: the feature's own changes, in registration order.
   * `carried`: why the presence ledger carried each device it holds, by udid.
   */
  annotate?(devices: readonly DeviceInfo[], carried?: CarriedKinds): DeviceInfo[];
  /** The device's inventory answered: once per inventory, for a feature that follows readings over time. */
  answered?(device: DeviceSnapshot): void;
  /** A source's listing changed (a phone came, went, or changed state), heard at once, outside any report. */
  changed?(changes: readonly DeviceChange[]): void;
  /** A report's outcome: what the cloud stored and refused, or that it took nothing. */
  reported?(outcome: ReportHeard): void;
  /** One of the actions' intents ended (src/actions/runner.ts): what it was, on which device, and how it went. */
  acted?(done: ActionDone): void;
  /** The serial of a device the feature reports itself while no source lists it (charge control's paused phone, off adb with its port). */
  serialOf?(udid: string): string | undefined;
  /** The fields the feature adds to a device's row (`list --json`, and what its columns and gauges read), each in its place. */
  fields?(): readonly RowField[];
  /** The columns the feature adds to `list` (none while it is off): read from the row, or its `cells`. */
  columns?(): readonly FeatureColumn[];
  /** The device's cells in its cell columns, by key; a key left out shows "-". `device` is absent for one no source lists. */
  cells?(info: DeviceInfo, device: DeviceSnapshot | undefined): Readonly<Record<string, string>>;
  /** Its own counters (stats.counter(KEY), where its code counts them), served on /metrics before what `metrics` adds. */
  readonly counters?: readonly CounterKey[];
  /** The feature's own series for /metrics: counts over the devices, on a bounded label set (never a label per device). */
  metrics?(): Metric[];
  /** Its per-device gauges on /metrics, labelled by udid, read from the rows of the last report's devices. */
  gauges?(): readonly DeviceGauge[];
  /** Its series that count the phones the rows show (a bounded label set), so /metrics counts what `list` lists. */
  tallies?(rows: readonly DeviceRow[]): Metric[];
  /** What it shows of a device on the status page beyond its row, by key (src/status/page-data.ts); `phone`: on the phone's own page, which may say more. */
  page?(row: DeviceRow, phone: boolean): Readonly<Record<string, unknown>> | undefined;
}

/** One change of a source's listing: the record's key, its serial, the state it left and the one it is in (none: gone). */
export interface DeviceChange {
  key: string;
  serial: string;
  from?: string;
  to?: string;
}

/** A report's outcome as the features hear it. */
export type ReportHeard =
  | {
      delivered: true;
      /** The devices the body carried (UNPLUGGED ones among them), as sent. */
      devices: readonly DeviceInfo[];
      /** What the cloud did not store. */
      failed: readonly FailedDevice[];
    }
  | { delivered: false; why: string };

/** An action's intent that ended, as the runner saw it. */
export interface ActionDone {
  /** The action's name (`recovery`, `charge`, ...). */
  action: string;
  /** What it acts on (ACTS_ON): a phone's link, its port's power, its settings, or the phone's place in the pool. */
  actsOn: string;
  target: string;
  /** The record key of the device it was for, when the action names one. */
  device?: string;
  /** What apply resolved with (ok when nothing), or failed when it threw. */
  outcome: string;
  /** The labels it was counted under, when it was counted (kick, power_cycle, ...). */
  labels?: readonly string[];
}

/** What the report knows of its sources' listings when the features owe. */
export interface Listing {
  absentIsGone(udid: string): boolean;
  /** Whether a source's answer holds the device in this report: one that does is owed by nobody. */
  listed(udid: string): boolean;
}

/** What the report knows of its sources when the features judge. */
export interface Judging {
  /** The platforms whose records' failures count shell sessions (their sources say so). */
  shell: ReadonlySet<Platform>;
}

/** Each feature that judges readings, over the report's freshly read devices, in registration order. */
export function judgeAll(features: readonly DeviceFeature[], devices: readonly DeviceInfo[], sources: Judging) {
  let out = [...devices];
  for (const f of features) if (f.judge) out = f.judge(out, sources);
  return out;
}

/** Each feature's word to the presence ledger before the report asks it, in registration order. */
export function oweAll(features: readonly DeviceFeature[], listing: Listing) {
  for (const f of features) f.owe?.(listing);
}

/** What each feature observes of the report's devices, then each annotate pass over them, then the verdicts standing on each (compose.ts). */
export function annotateAll(
  features: readonly DeviceFeature[],
  devices: readonly DeviceInfo[],
  carried: CarriedKinds = new Map(),
  timeline?: Pick<Timeline, 'verdictsOf' | 'folded'>,
) {
  for (const f of features) f.observe?.(devices, carried);
  let out = [...devices];
  for (const f of features) if (f.annotate) out = f.annotate(out, carried);
  if (!timeline) return out;
  timeline.folded();
  return out.map((info) => withVerdicts(info, timeline.verdictsOf(info.udid)));
}

/** The device's inventory answered: each feature that follows readings hears of it, in registration order. */
export function answeredAll(features: readonly DeviceFeature[], device: DeviceSnapshot) {
  for (const f of features) f.answered?.(device);
}

/** A source's listing changed: each feature that follows the phones hears it, in registration order. */
export function changedAll(features: readonly DeviceFeature[], changes: readonly DeviceChange[]) {
  for (const f of features) f.changed?.(changes);
}

/** A report ended: each feature that follows the cloud's answers hears it, in registration order. */
export function reportedAll(features: readonly DeviceFeature[], outcome: ReportHeard) {
  for (const f of features) f.reported?.(outcome);
}

/** An action's intent ended: each feature that follows the actions hears it, in registration order. */
export function actedAll(features: readonly DeviceFeature[], done: ActionDone) {
  for (const f of features) f.acted?.(done);
}

/** The features' own series, as one more source of /metrics. */
export function featureMetrics(features: readonly DeviceFeature[], stats: AgentStats): MetricSource {
  return { metrics: () => features.flatMap((f) => [...(f.counters ?? []).map((key) => stats.counter(key).metric()), ...(f.metrics?.() ?? [])]) };
}

/** The serial a feature gives a device no source lists, if one does. */
export function serialOf(features: readonly DeviceFeature[], udid: string) {
  for (const f of features) {
    const serial = f.serialOf?.(udid);
    if (serial !== undefined) return serial;
  }
  return undefined;
}

/** The features' row fields, in registration order. */
export function fieldsOf(features: readonly DeviceFeature[]) {
  return features.flatMap((f) => f.fields?.() ?? []);
}

/** The features' per-device gauges, in registration order. */
export function gaugesOf(features: readonly DeviceFeature[]) {
  return features.flatMap((f) => f.gauges?.() ?? []);
}

/** The features' `list` columns, in registration order. */
export function columnsOf(features: readonly DeviceFeature[]) {
  return features.flatMap((f) => f.columns?.() ?? []);
}

/** The features' cells for one device, by column key. */
export function cellsOf(features: readonly DeviceFeature[], info: DeviceInfo, device: DeviceSnapshot | undefined) {
  const cells: Record<string, string> = {};
  for (const f of features) Object.assign(cells, f.cells?.(info, device));
  return cells;
}

/** What the features show of a device on the status page beyond its row, in registration order. */
export function pageOf(features: readonly DeviceFeature[], row: DeviceRow, phone: boolean) {
  const out: Record<string, unknown> = {};
  for (const f of features) Object.assign(out, f.page?.(row, phone));
  return out;
}

import { CloudAuthError, CloudRejectedError, CloudUnavailableError } from '../cloud/errors.js';
import { adviceFor } from '../cloud/failed-devices.js';
import { STATUS_UNAVAILABLE, STATUS_UNPLUGGED, type DeviceInfo, type FailedDevice, type Machine, type ReportBody } from '../cloud/types.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { Logger } from '../log/logger.js';
import type { CollectRequest, DeviceSource } from '../platforms/source.js';
import type { AgentStats } from '../stats/agent-stats.js';
import type { Failure, ReportPlan } from '../timing/planner.js';
import type { Clock, Timers } from '../util/clock.js';
import { bounded, execute } from './execute.js';
import { putSplitting, type PartSize, type ReportSink } from './split-put.js';
import { decorate, type DecorateSettings } from './decorate.js';
import type { ReportedStore } from './reported-store.js';
import type { UnpluggedLedger } from './unplugged.js';
import { composeBody } from './body.js';
import { withServiceDown } from './service-down.js';
import { HiddenDevicesCheck } from './hidden-devices.js';
import { annotateAll, judgeAll, oweAll, reportedAll, type DeviceFeature } from '../devices/feature.js';
import { judgedByHealth, kindsOf, type OwedDevice, type PresenceReason } from '../devices/presence.js';
import { limited } from '../log/limited.js';

export type { ReportSink } from './split-put.js';

export interface ReporterDeps {
  nodeId: string;
  sources: readonly DeviceSource[];
  registry: DeviceRegistry;
  /** What acts on devices, in registration order (src/agent/features.ts): the judges (health) first, then each annotates the report. */
  features: readonly DeviceFeature[];
  settings: DecorateSettings;
  machine: { collect(): Promise<Machine> };
  cloud: ReportSink;
  unplugged: UnpluggedLedger;
  /** Where the delivered device set is kept across restarts; none for a dry run. */
  reported?: ReportedStore;
  stats: AgentStats;
  logger: Logger;
  clock: Clock & Timers;
  /** How long one source's collect may take in the daemon (past it, last inventories); none: the source's own deadlines. */
  collectTimeoutMs?: number;
  /** Whether the changes since the last report are news for its log line: not when all came from flapping phones. */
  changes?: { takeNews(): boolean };
}

export type ReportOutcome =
  | { delivered: true; failedDevices: FailedDevice[]; body: ReportBody; sent: string[] }
  | { delivered: false; error: Error; failure: Failure; retryAfterMs?: number; body?: ReportBody };

/**
 * A quiet log: a scheduled report without news after a delivered one is logged at debug, as is one only for flapping
 * phones' changes; one info line sums them up at most every REPORT_SUMMARY_MS. Reports with news, and the first
 * delivered after a failure, stay at info (README's log section).
 */
export const REPORT_SUMMARY_MS = 3_600_000;

/** Why the report carries a device the cloud was told of that no source lists yet: one entry, the report's own, written at each. */
const UNLISTED: PresenceReason = { kind: 'unlisted', scope: 'report' };

/**
 * One report, in one direction: collect (every source) → the features judge (health) and annotate → decorate → compose
 * with the UNPLUGGED records still owed → PUT. It decides nothing about timing: that is the planner's.
 */
export class Reporter {
  /** The devices the last report carried as unlisted: they stay carried while the list they are missing from settles. */
  private unlistedBefore = new Set<string>();
  /** The part size a 413 left, so that the next reports do not go whole first. */
  private readonly partSize: PartSize = {};
  /** Scheduled reports without news delivered since `since` (monotonic), not yet summed up. */
  private quiet: { count: number; since: number } | undefined;
  /** Whether the last report was delivered: the first delivered one, and the first after a failure, are news. */
  private lastDelivered = false;
  /** What the reports in flight wait for now, a count each: sources collecting, the host's figures, the PUT. */
  private readonly pending = new Map<DeviceSource | 'machine' | 'put', number>();
  /** hiddenDevices entries no device has, said after the first complete listing. */
  private readonly hidden: HiddenDevicesCheck;

  constructor(private readonly deps: ReporterDeps) {
    this.hidden = new HiddenDevicesCheck(deps.settings.hiddenDevices, deps.logger);
  }

  /**
   * The devices present now, health rules and settings applied, sources in registration order, for a person (`list`): one
   * no source lists now (its source down, its list not complete) is as the cloud was last told of it, its state unknown.
   */
  async inventory(request: CollectRequest): Promise<DeviceInfo[]> {
    const { devices, unseen } = await this.collect(request, true);
    return devices.map((d) => (unseen.has(d.udid) ? { ...d, state: 'unknown' } : d));
  }

  /** Every source's devices (each run the same way: execute.ts), and whether every source answered. */
  /** `complete`: whether the plan takes the sources' listings as complete; with the UNPLUGGED ledger it decides which absent phone is gone, and so which one the USB layer may call off adb. */
  private async collect(request: CollectRequest, complete: boolean) {
    const { deps } = this;
    const t0 = deps.clock.monotonic();
    const timeoutMs = request.waitForAll ? undefined : deps.collectTimeoutMs;
    const runs = await Promise.all(deps.sources.map((s) => this.while(s, execute(s, request, { ...deps, presence: deps.registry.presence, timeoutMs }))));
    deps.sources.forEach((s, i) => deps.stats.noteSourceRun(s.platform, runs[i]!.run));
    // The owed devices, asked once: a source's last reading joins before health judges it, a held-off device after.
    const present = runs.flatMap((r) => r.devices);
    const answeredAll = runs.every((r) => r.run.ok);
    const listed = new Set(present.map((d) => d.udid));
    // A device the cloud was told of is gone only once every source answered, its own since the agent started, and its list is complete.
    const unheard = (udid: string) => {
      const source = this.sourceOf(udid);
      return source !== undefined && !(source.answered ?? source.listed);
    };
    // As a source that did not answer: one listing a device it cannot name yet lets no device be called gone.
    const nothingGone = !answeredAll || deps.sources.some((s) => s.naming);
    const absentIsGone = (udid: string) => !nothingGone && !unheard(udid) && deps.unplugged.absentIsGone(udid, complete);
    oweAll(deps.features, { absentIsGone, listed: (udid) => listed.has(udid) });
    const failedNow = new Map(deps.sources.flatMap((s, i) => (runs[i]!.run.ok ? [] : [[s, runs[i]!.error] as const])));
    // Carried: a phone whose source has not answered since the start or fails now, and one already carried while the
    // list it is missing from settles. A phone an answering source has yet to list after a restart is left to the
    // cloud's last word, as before: carrying it UNAVAILABLE would flap every phone at every upgrade.
    const failing = (udid: string) => {
      const source = this.sourceOf(udid);
      return source !== undefined && failedNow.has(source);
    };
    const unlisted = deps.unplugged.current.filter(
      (d) => !listed.has(d.udid) && !absentIsGone(d.udid) && (unheard(d.udid) || failing(d.udid) || this.unlistedBefore.has(d.udid)),
    );
    this.unlistedBefore = new Set(unlisted.map((d) => d.udid));
    deps.registry.presence.owe(
      UNLISTED,
      unlisted.map((d) => ({ udid: d.udid, says: { status: STATUS_UNAVAILABLE }, why: this.unlistedWhy(d.udid, unheard(d.udid), failedNow) })),
      { while: 'no source lists them and absence cannot call them gone' },
    );
    // Each owed device with its last inventory: the readings', or for a phone only an earlier run read, what the cloud
    // was last told of it.
    const inventoryOf = (d: OwedDevice) => deps.registry.readings.inventoryOf(d.udid, d.key) ?? deps.unplugged.told(d.udid);
    const { carried } = deps.registry.presence.report(present, deps.clock.monotonic(), inventoryOf);
    const kept = carried.flatMap((c) => bounded([c.info], c.info.platformName.toLowerCase(), deps.logger).map((info) => ({ info, reason: c.reason })));
    const collected = [...present, ...kept.flatMap((c) => (judgedByHealth(c.reason) ? [c.info] : []))];
    const held = kept.flatMap((c) => (judgedByHealth(c.reason) ? [] : [c.info]));
    // The judges (health) on the fresh readings, then the held devices join, then every feature's annotate pass, told why each carried one is.
    const shell = new Set(deps.sources.flatMap((s) => (s.failuresAreShellSessions ? [s.platform] : [])));
    const judged = [...judgeAll(deps.features, collected, { shell }), ...held];
    const { timeline } = deps.registry;
    const annotated = annotateAll(deps.features, judged, kindsOf(kept), timeline);
    const failedSaid = new Set(kept.filter((c) => c.reason.kind === 'source-failed').map((c) => c.info.udid));
    const devices = withServiceDown(annotated, deps.sources, timeline, deps.clock, failedSaid).map((info) => decorate(info, deps.settings));
    // The device part of a report's time, apart from the Machine stats and the PUT: `npm run bench` reads it.
    deps.logger.debug({ devices: devices.length, ms: Math.round(deps.clock.monotonic() - t0) }, 'inventory collected');
    const unseen = new Set(kept.filter((c) => c.reason.kind === UNLISTED.kind).map((c) => c.info.udid));
    return { devices, answered: answeredAll, nothingGone, unseen };
  }

  /** The source of a device the cloud was told of, by its platform's name; none when its platform runs no source now. */
  private sourceOf(udid: string) {
    const told = this.deps.unplugged.told(udid);
    return told === undefined ? undefined : this.deps.sources.find((s) => s.platform === told.platformName.toLowerCase());
  }

  /**
   * Why a device the cloud was told of is carried though no source lists it:
   * its source has not answered since the agent started, or does not answer
   * now (in the words a failed source's devices have, execute.ts), or its
   * list is not complete yet.
   */
  private unlistedWhy(udid: string, unheard: boolean, failedNow: ReadonlyMap<DeviceSource, string | undefined>) {
    const source = this.sourceOf(udid);
    const label = source?.label ?? 'its source';
    const error = (source && failedNow.get(source)) ?? source?.lastError;
    const cause = `${label}${error ? `: ${error}` : ''}`;
    const host = "a fault on the agent host's side, not known to be the device's: this is the device as the agent last reported it";
    if (unheard) return `the agent has not read its ${source?.platform ?? ''} devices since it started (${cause}); ${host}`;
    if (source && failedNow.has(source)) return `the agent could not read its ${source.platform} devices (${cause}); ${host}`;
    return (
      `${label} does not list it now, and the agent cannot take its list as complete yet (it has just (re)connected, or a source does not answer), ` +
      'so it is not called gone: this is the device as the agent last reported it'
    );
  }

  /** The body a report would carry now (a dry run sends none), whether its listing is complete, and whether every source answered. */
  async compose(plan: ReportPlan) {
    const [{ devices, answered, nothingGone, unseen }, machine] = await Promise.all([
      this.collect(plan.request, plan.complete),
      this.while('machine', this.deps.machine.collect()),
    ]);
    // A source that did not answer lists nothing, one that cannot name a device lists no one for sure: none is gone.
    const complete = plan.complete && !nothingGone;
    if (complete) this.hidden.listed(devices);
    return {
      body: composeBody({ nodeId: this.deps.nodeId, machine }, devices, this.deps.unplugged, complete, nothingGone, unseen),
      complete,
      answered,
    };
  }

  async send(plan: ReportPlan, signal?: AbortSignal): Promise<ReportOutcome> {
    const { deps } = this;
    const now = () => deps.clock.wall();
    const started = now();
    let body: ReportBody | undefined;
    /** When the PUT went out: a report the cloud never answered failed from then, not from its timeout. */
    let sentAt: number | undefined;
    const changesNews = deps.changes?.takeNews() ?? true;
    try {
      const composed = await this.compose(plan);
      body = composed.body;
      deps.stats.lastInventoryDurationMs = now() - started;
      // Kept before the PUT too: a crash after the cloud stored the report must not leave a device it shows online unknown.
      deps.reported?.save(union(deps.unplugged.current, body.devices));
      // Too large for the cloud (413): sent in parts, not whole again forever.
      sentAt = deps.clock.monotonic();
      const { answer } = await this.while(
        'put',
        putSplitting(deps.cloud, body, { deadline: plan.deadline, signal }, deps.logger, {
          size: this.partSize,
          now: deps.clock.monotonic(),
        }),
      );
      deps.stats.reportsSent++;
      deps.stats.lastSuccessAt = now();
      deps.stats.refusal = undefined;
      // Only a report made once every source had listed its devices tells the truth about the host (/healthz).
      if (plan.listed && composed.answered) deps.stats.listingDelivered = true;
      deps.unplugged.delivered(body.devices, composed.complete, answer.failedDevices, deps.clock.monotonic());
      deps.reported?.save(deps.unplugged.current);
      const sent = body.devices.filter((d) => d.status !== STATUS_UNPLUGGED).map((d) => d.udid);
      const fields = {
        reason: plan.reason,
        devices: sent.length,
        unplugged: body.devices.length - sent.length,
        failedDevices: answer.failedDevices.length,
        ms: now() - started,
      };
      // The first delivered report is news whatever its trigger: a schedule tick can come before the start report. A
      // report that came only for the changes of flapping phones is no news either: flap-log.ts sums them up.
      const news = !this.lastDelivered || plan.reason.split(', ').some((t) => t !== 'schedule' && (t !== 'devices-changed' || changesNews));
      this.lastDelivered = true;
      if (news) deps.logger.info(fields, 'report delivered');
      else this.quietReport(fields);
      reportedAll(deps.features, { delivered: true, devices: body.devices, failed: answer.failedDevices });
      return { delivered: true, failedDevices: answer.failedDevices, body, sent };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      deps.stats.reportsFailed++;
      this.lastDelivered = false;
      deps.stats.lastFailure = error.message;
      deps.stats.lastFailureAt = now();
      if (error instanceof CloudAuthError || error instanceof CloudRejectedError) {
        // The first refusal's time is kept while it goes on: /healthz says since when.
        const since = deps.stats.refusal?.status === error.status ? deps.stats.refusal.since : now();
        deps.stats.refusal = { status: error.status, credentials: error instanceof CloudAuthError, since, message: error.message };
      }
      const retryAfterMs = error instanceof CloudUnavailableError ? error.retryAfterMs : undefined;
      deps.registry.timeline.notDelivered(error.message, sentAt ?? deps.clock.monotonic());
      reportedAll(deps.features, { delivered: false, why: error.message });
      // How timing treats it: a refusal waits for the schedule, anything else is resent with backoff.
      const failure = error instanceof CloudAuthError ? 'auth' : error instanceof CloudRejectedError ? 'rejected' : 'transient';
      return { delivered: false, error, failure, retryAfterMs, body };
    }
  }
  /** What a report in flight waits for now (the cloud, named devices' inventories, the host's figures), for the shutdown line. */
  waitingOn() {
    const { deps } = this;
    if (this.pending.get('put')) {
      return `the cloud's answer to PUT /devices at ${deps.cloud.host ?? 'the cloud'} (check that this host reaches it: device-agent doctor)`;
    }
    const waits: string[] = [];
    for (const source of deps.sources) {
      if (!this.pending.get(source)) continue;
      const probing = deps.registry.list(source.platform).filter((r) => r.probing);
      const who = probing.map((r) => (r.udid === undefined || r.udid === r.serial ? r.serial : `${r.udid} (${r.serial})`));
      waits.push(
        who.length === 0
          ? `the ${source.platform} devices from ${source.label} (check it answers: device-agent doctor)`
          : `the inventory of ${namesOf(who, 5)} from ${source.label} (a slow or hung phone: see device-agent list; replug or reboot it if this lasts)`,
      );
    }
    if (this.pending.get('machine')) waits.push("the host's own figures (CPU, memory, disks: a hung mount or /proc read on this host)");
    return waits.length === 0 ? undefined : waits.join('; and ');
  }

  /** Counts `during` as pending on `on` while it runs: what waitingOn reads. */
  private while<T>(on: DeviceSource | 'machine' | 'put', during: Promise<T>) {
    const add = (n: number) => this.pending.set(on, (this.pending.get(on) ?? 0) + n);
    add(1);
    return during.finally(() => add(-1));
  }

  private quietReport(fields: { devices: number; unplugged: number; failedDevices: number }) {
    const { logger, clock } = this.deps;
    logger.debug(fields, 'report delivered');
    const at = clock.monotonic();
    const quiet = (this.quiet ??= { count: 0, since: at });
    quiet.count++;
    if (at - quiet.since < REPORT_SUMMARY_MS) return;
    const minutes = Math.round((at - quiet.since) / 60_000);
    logger.info(
      { reports: quiet.count, minutes, devices: fields.devices, failedDevices: fields.failedDevices },
      `${quiet.count} report${quiet.count === 1 ? '' : 's'} without news (scheduled, or only for the changes of flapping phones) delivered in the last ${minutes} min (each logged at debug); the last carried ${fields.devices} device${fields.devices === 1 ? '' : 's'}`,
    );
    this.quiet = { count: 0, since: at };
  }
}

/** At most `max` names, then how many more. */
function namesOf(names: readonly string[], max: number) {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

/** The devices last delivered plus the present ones of a report about to go out. */
function union(reported: DeviceInfo[], sending: DeviceInfo[]) {
  const byUdid = new Map(reported.map((d) => [d.udid, d]));
  for (const d of sending) if (d.status !== STATUS_UNPLUGGED) byUdid.set(d.udid, d);
  return [...byUdid.values()];
}

/** Devices one line names; the rest of a list is counted. */
const NAMED = 10;
/** The cloud's message is its text, of any length: a log line carries its start. */
const MESSAGE_CHARS = 300;

/**
 * What the cloud's failedDevices said, in a bounded number of lines: a warning with advice for each of the first devices
 * it did not store, one line for the rest, one for entries naming devices not carried; each rate-limited across reports.
 */
export function logFailedDevices(logger: Logger, failed: readonly FailedDevice[], unsent: readonly FailedDevice[]) {
  const log = limited(logger);
  for (const f of failed.slice(0, NAMED)) {
    const message = clip(f.message);
    log.warn(
      'cloud-refused-device',
      { udid: f.udid, cloudMessage: message },
      `the cloud did not store device ${f.udid}: ${message}. ${adviceFor(f.message)}`,
      f.udid,
    );
  }
  const rest = failed.slice(NAMED);
  if (rest.length) {
    log.warn(
      'cloud-refused-devices',
      { refused: rest.length, udids: rest.slice(0, NAMED).map((f) => f.udid) },
      `the cloud did not store ${rest.length} more devices (${namesOf(
        rest.map((f) => f.udid),
        NAMED,
      )}); ${reasons(rest)}. device_agent_failed_device in /metrics lists them all`,
    );
  }
  if (unsent.length) {
    log.warn(
      'cloud-named-unsent-devices',
      { named: unsent.length, udids: unsent.slice(0, NAMED).map((f) => f.udid) },
      `the cloud named ${unsent.length} device${unsent.length === 1 ? '' : 's'} in failedDevices that the report did not carry (${namesOf(
        unsent.map((f) => f.udid),
        NAMED,
      )}); ${reasons(unsent)}; ignored (nothing to retry)`,
    );
  }
}

/** The three most frequent messages, with their counts. */
function reasons(list: readonly FailedDevice[]) {
  const counts = new Map<string, number>();
  for (const f of list) counts.set(f.message, (counts.get(f.message) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const more = counts.size - top.length;
  return `the cloud said ${top.map(([m, n]) => `"${clip(m)}"${list.length > 1 ? ` (${n})` : ''}`).join(', ')}${more > 0 ? ` and ${more} other messages` : ''}`;
}

function clip(message: string) {
  return message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message;
}

// Every timing decision of the daemon in one pure module: when the next
// report goes out, and which devices it probes afresh. The agent feeds it
// events and runs what take() hands out; it reads the devices from the
// registry's snapshots (their state, failure count and when they were last
// asked) and keeps no per-device state of its own; nothing here reads a
// clock, sets a timer or does I/O. Times are milliseconds of a monotonic clock, so a wall
// clock step (NTP, suspend and resume) cannot stall or rush a plan.
//
// Guarantees (test/timing/planner.property.test.ts checks each on long random
// event sequences):
// - a follow-up report (resend, failed-device retry, inventory retry,
//   watchdog) starts at least minFollowUpGapMs after the previous report
//   started: at most 12 a minute with the default 5 s, whatever the cloud
//   answers; a report the cloud rejected (4xx other than 408/429) or refused
//   for its credentials is not resent before the next scheduled report;
// - an operator's request (SIGHUP) is answered at once, or minFollowUpGapMs
//   after the previous report started, whichever is later; requests
//   meanwhile fold into it;
// - a device change is reported within maxChangeWaitMs plus the report in
//   flight; a report starts at least once per schedule period, plus jitter
//   and slack, even when a schedule tick is lost;
// - a failed-device entry lives only while its device is reported; no retry
//   is planned in the past;
// - memory is bounded by the number of devices the last delivered report
//   carried (failed-device entries); everything per device is the registry's.

import { FailedDevicePolicy, type FailedDevicePolicyOptions, type RecordResult } from '../cloud/failed-devices.js';
import type { FailedDevice } from '../cloud/types.js';
import type { CloudView } from '../devices/cloud-view.js';
import type { DeviceSnapshot } from '../devices/record.js';

/** What the planner reads of the device registry. */
export interface PlannerDevices {
  list(): ReadonlyArray<Pick<DeviceSnapshot, 'key' | 'state' | 'failures' | 'failure' | 'askedAt' | 'probing' | 'changedSeq'>>;
  /** The registry's change counter: records with a larger changedSeq changed since it was read. */
  readonly changeCounter: number;
  /** The record keys behind a udid. */
  byUdid(udid: string): ReadonlyArray<Pick<DeviceSnapshot, 'key'>>;
  /** Where the cloud's refusals are kept, by udid. */
  readonly cloud?: Pick<CloudView, 'refusals'>;
}

/** adb's state of a device that answers its inventory; only those are planned (iPhones are read at every report). */
const READY = 'device';

export type Trigger =
  | 'start'
  | 'schedule'
  | 'watchdog'
  | 'devices-changed'
  | 'adb-resumed'
  | 'adb-settled'
  | 'requested'
  | 'resend'
  | 'failed-device-retry'
  | 'inventory-retry';

/**
 * Triggers that are not rate-limited: the schedule and device events. An
 * operator's request (SIGHUP) is throttled like a follow-up: at once, unless a
 * report started less than minFollowUpGapMs ago; a reload loop sending SIGHUP
 * every few ms made one full report after another (44 PUTs in 10 s).
 */
export const UNTHROTTLED: ReadonlySet<Trigger> = new Set(['start', 'schedule', 'devices-changed', 'adb-resumed', 'adb-settled']);

/** Why a report was not delivered, as far as timing cares. */
export type Failure =
  /** Network, timeout, 408, 429, 5xx, an answer that is not the API's, or the inventory itself: resend with backoff. */
  | 'transient'
  /** A 4xx other than 408/429: resending the same thing cannot help; wait for the schedule. */
  | 'rejected'
  /** 401/403: credentials; wait for the schedule. */
  | 'auth';

export type ReportResult =
  | {
      delivered: true;
      /** udids of the present (not UNPLUGGED) devices the report carried. */
      sent: readonly string[];
      failedDevices: readonly FailedDevice[];
    }
  | { delivered: false; failure: Failure };

export interface PlannedReport {
  triggers: Trigger[];
  /** Record keys to inventory afresh; a ready device outside it keeps its last inventory. */
  refresh: Set<string>;
  /** Record keys not to inventory in this report whatever refresh says: their inventories keep failing and their next try is later. */
  hold: Set<string>;
}

export interface FinishNotes extends RecordResult {
  /** failedDevices entries naming a udid the report did not carry: logged, never kept. */
  unsent: FailedDevice[];
  /** When a not-delivered report goes out again; undefined: at the next scheduled report. */
  resendAt: number | undefined;
}

export interface PlannerOptions {
  /** Time between scheduled reports. */
  periodMs: number;
  /** Upper bound of the random delay of a scheduled report. */
  jitterMs: number;
  /** Device changes are gathered this long after the last one ... */
  debounceMs: number;
  /** ... but never longer than this after the first (default 1.5 s). */
  maxChangeWaitMs?: number;
  /** Least time between a report start and a follow-up report (default 5 s). */
  minFollowUpGapMs?: number;
  /** A lost schedule tick is made up this long after it was due (default 10 s). */
  watchdogSlackMs?: number;
  /**
   * How long after adb (re)connects its device list is taken as complete
   * (default 10 s): right after an adb server starts, USB phones are still
   * being enumerated, and calling them gone would flap them in the cloud.
   */
  adbSettleMs?: number;
  resendMinMs?: number;
  resendMaxMs?: number;
  probeRetryMinMs?: number;
  probeRetryMaxMs?: number;
  failed?: FailedDevicePolicyOptions;
}

export class ReportPlanner {
  private readonly o: Required<Omit<PlannerOptions, 'failed'>>;
  readonly failed: FailedDevicePolicy;
  /** The registry's change counter when the last report started: records changed after it are refreshed. */
  private seenChange = 0;
  private changeFirstAt: number | undefined;
  private changeLastAt: number | undefined;
  private readonly immediate = new Set<Trigger>();
  private resendAttempt = 0;
  private resendAt: number | undefined;
  private inFlight = false;
  private lastStartAt: number | undefined;
  /** When adb's device list counts as complete again after it (re)connected. */
  private settleAt: number | undefined;
  private settleDue = false;

  constructor(
    private readonly devices: PlannerDevices,
    options: PlannerOptions,
  ) {
    this.o = {
      maxChangeWaitMs: 1_500,
      minFollowUpGapMs: 5_000,
      watchdogSlackMs: 10_000,
      adbSettleMs: 10_000,
      resendMinMs: 5_000,
      resendMaxMs: 30_000,
      probeRetryMinMs: 10_000,
      probeRetryMaxMs: 5 * 60_000,
      ...options,
    };
    this.failed = new FailedDevicePolicy(options.failed, devices.cloud?.refusals);
  }

  // ---- events ----

  /** The first report, right away. */
  start(): void {
    this.immediate.add('start');
  }

  scheduleTick(): void {
    this.immediate.add('schedule');
  }

  /** An operator asked for a full report (SIGHUP). */
  requested(): void {
    this.immediate.add('requested');
  }

  /** adb tracking came back: the same devices may be listed, but inventories were cut off. */
  adbResumed(now: number): void {
    // (The Android source forgives the inventories the server's going away cut off.)
    this.noteChange(now);
    this.immediate.add('adb-resumed');
  }

  /** adb tracking connected (at start or after the server restarted). */
  adbConnected(now: number): void {
    this.settleAt = now + this.o.adbSettleMs;
    this.settleDue = true;
  }

  /** Nothing waits for adb's list to settle (every device reported before was seen again): no report for it. */
  adbSettleNotNeeded(): void {
    this.settleDue = false;
  }

  /** Whether adb's device list can be taken as complete: a device absent from it is gone. */
  adbSettled(now: number): boolean {
    return this.settleAt !== undefined && now >= this.settleAt;
  }

  /**
   * A source's listing changed (the registry already holds the new states;
   * a new state is a new connection, so a replugged wedged phone is asked at
   * once), or an inventory a report did not wait for brought news.
   */
  devicesChanged(now: number): void {
    this.noteChange(now);
  }

  // ---- plans ----

  /** When take() has something to hand out; undefined while a report is in flight. */
  nextAt(now: number): number | undefined {
    if (this.inFlight) return undefined;
    let earliest = Infinity;
    for (const at of this.dueTimes().values()) earliest = Math.min(earliest, at);
    return earliest === Infinity ? undefined : Math.max(now, earliest);
  }

  /** The report due at `now`, marked as in flight; undefined when none is due or one is in flight. */
  take(now: number): PlannedReport | undefined {
    if (this.inFlight) return undefined;
    const triggers = [...this.dueTimes()].filter(([, at]) => at <= now).map(([t]) => t);
    if (triggers.length === 0) return undefined;
    const refresh = new Set<string>();
    const hold = new Set<string>();
    const full = triggers.some((t) => t === 'start' || t === 'schedule' || t === 'watchdog' || t === 'adb-resumed' || t === 'requested');
    // A full report answers a request still waiting for its gap: it reads everything the request asked for.
    if (full && this.immediate.has('requested') && !triggers.includes('requested')) triggers.push('requested');
    for (const d of this.devices.list()) {
      if (d.state !== READY) continue;
      if (d.failures > 0) {
        // Asked again only once its backoff has passed (counted from its last
        // failure or, while one runs, its last ask), not on every report.
        if (d.probing || this.retryAt(d) > now) hold.add(d.key);
        else refresh.add(d.key);
      } else if (full || d.changedSeq > this.seenChange) {
        refresh.add(d.key);
      }
    }
    this.seenChange = this.devices.changeCounter;
    const failedDue = this.failed.dueForRetry(now);
    for (const udid of failedDue) for (const r of this.devices.byUdid(udid)) refresh.add(r.key);
    this.failed.defer(failedDue, now);
    if (triggers.includes('adb-settled')) this.settleDue = false;
    // A request still waiting for its gap stays; every other immediate trigger was taken.
    for (const t of triggers) this.immediate.delete(t);
    this.changeFirstAt = this.changeLastAt = undefined;
    this.resendAt = undefined;
    this.inFlight = true;
    this.lastStartAt = now;
    return { triggers, refresh, hold };
  }

  /** The report handed out by take() ended. */
  finished(result: ReportResult, now: number): FinishNotes {
    this.inFlight = false;
    if (!result.delivered) {
      if (result.failure === 'transient') {
        this.resendAttempt++;
        this.resendAt = now + backoff(this.resendAttempt, this.o.resendMinMs, this.o.resendMaxMs);
      } else {
        this.resendAttempt = 0;
        this.resendAt = undefined;
      }
      return { newlyFailed: [], recovered: [], unsent: [], resendAt: this.resendAt };
    }
    this.resendAttempt = 0;
    this.resendAt = undefined;
    const sent = new Set(result.sent);
    const unsent = result.failedDevices.filter((f) => !sent.has(f.udid));
    const notes = this.failed.record(
      result.sent,
      result.failedDevices.filter((f) => sent.has(f.udid)),
      now,
    );
    // A device no longer reported (unplugged, its UNPLUGGED record sent) has nothing left to retry.
    this.failed.retain(sent);
    return { ...notes, unsent, resendAt: undefined };
  }

  // ---- introspection ----

  /** Sizes of what the planner holds, for the memory bound. */
  footprint(): { failed: number } {
    return { failed: this.failed.current().length };
  }

  /** Every retry time the planner holds or reads (resend, failed devices, inventories), for checks. */
  plannedRetries(): number[] {
    const times: number[] = [];
    for (const d of this.devices.list()) if (d.state === READY && d.failures > 0 && !d.probing) times.push(this.retryAt(d));
    for (const f of this.failed.current()) times.push(f.nextRetryAt);
    if (this.resendAt !== undefined) times.push(this.resendAt);
    return times;
  }

  /** When a device whose inventories keep failing is asked again. */
  private retryAt(d: Pick<DeviceSnapshot, 'failures' | 'failure' | 'askedAt'>): number {
    const from = Math.max(d.failure?.at ?? -Infinity, d.askedAt ?? -Infinity);
    return from + backoff(d.failures, this.o.probeRetryMinMs, this.o.probeRetryMaxMs);
  }

  private noteChange(now: number): void {
    this.changeFirstAt ??= now;
    this.changeLastAt = now;
  }

  private dueTimes(): Map<Trigger, number> {
    const due = new Map<Trigger, number>();
    const gapFloor = this.lastStartAt === undefined ? -Infinity : this.lastStartAt + this.o.minFollowUpGapMs;
    for (const t of this.immediate) due.set(t, UNTHROTTLED.has(t) ? -Infinity : gapFloor);
    // Once adb's list counts as complete, the devices that did not come back go out as UNPLUGGED.
    if (this.settleDue && this.settleAt !== undefined) due.set('adb-settled', this.settleAt);
    if (this.changeFirstAt !== undefined && this.changeLastAt !== undefined) {
      due.set('devices-changed', Math.min(this.changeLastAt + this.o.debounceMs, this.changeFirstAt + this.o.maxChangeWaitMs));
    }
    if (this.resendAt !== undefined) due.set('resend', Math.max(this.resendAt, gapFloor));
    const failedAt = this.failed.nextRetryAt();
    if (failedAt !== undefined) due.set('failed-device-retry', Math.max(failedAt, gapFloor));
    let probeAt = Infinity;
    for (const d of this.devices.list()) if (d.state === READY && d.failures > 0 && !d.probing) probeAt = Math.min(probeAt, this.retryAt(d));
    if (probeAt !== Infinity) due.set('inventory-retry', Math.max(probeAt, gapFloor));
    if (this.lastStartAt !== undefined) {
      due.set('watchdog', Math.max(gapFloor, this.lastStartAt + this.o.periodMs + this.o.jitterMs + this.o.watchdogSlackMs));
    }
    return due;
  }
}

/** min, 2·min, 4·min, … capped at max, for the n-th consecutive failure (n ≥ 1). */
export function backoff(n: number, min: number, max: number): number {
  return Math.min(max, min * 2 ** Math.max(0, Math.min(n - 1, 30)));
}

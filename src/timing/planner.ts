// Every timing decision of the daemon in one pure module: when the next report goes out, and which devices it probes
// afresh. It reads the devices from the registry's snapshots and keeps no per-device state; it reads no clock, sets no
// timer and does no I/O. Times are of a monotonic clock, so a wall clock step cannot stall or rush a plan.
//
// Guarantees (test/timing/planner.property.test.ts on random event sequences, test/timing/fleet.test.ts for a fleet):
// - every report but the schedule's own tick starts only with a token of the report budget (token-bucket.ts): at most
//   12 such in any 60 s with the defaults, plus one a period for the schedule; a burst of arrivals is coalesced into one
//   report per token, and a lone change finds a token and goes at once; a report the cloud rejected (4xx other than
//   408/429, or credentials) is not resent before the next scheduled report;
// - while the cloud does not take reports, one backoff spans all reports (cloud-backoff.ts): at most 3 attempts in any
//   60 s of an outage, and after it the next attempt is the next scheduled report or a resend of news;
// - no report starts before the time a Retry-After named, plus jitter; an operator's request (SIGHUP) is answered at
//   once, or when a token is free; requests meanwhile fold into it;
// - a device change that finds a token free and no report in flight is reported within maxChangeWaitMs; any change
//   within reportRefillMs, or the end of the report in flight when later, unless the cloud's last answer was a failure
//   that may pass (then with the backoff's next attempt); a report starts at least once per schedule period, even when
//   a tick is lost; the start report waits a random part of startSpreadMs and for every source's first listing (and
//   its settling while fewer devices are listed than last reported), at most firstListingWaitMs; nothing goes before it;
// - a source's tracking that comes back asks for a full report at most once a period;
// - a failed-device entry lives only while its device is reported; no retry is planned in the past;
// - memory is bounded by the devices the last delivered report carried; everything per device is the registry's.

import { FailedDevicePolicy } from '../cloud/failed-devices.js';
import type { FailedDevice } from '../cloud/types.js';
import type { DeviceSnapshot } from '../devices/snapshot.js';
import type { CollectRequest } from '../platforms/source.js';
import { backoffBound, type BackoffPolicy } from '../util/backoff.js';
import { systemClock } from '../util/clock.js';
import { CloudBackoff } from './cloud-backoff.js';
import { TokenBucket } from './token-bucket.js';

/** What the planner reads of the device registry. */
export interface PlannerDevices {
  list(): ReadonlyArray<Pick<DeviceSnapshot, 'key' | 'platform' | 'state' | 'failures' | 'failure' | 'askedAt' | 'probing' | 'changedSeq'>>;
  /** The registry's change counter: records with a larger changedSeq changed since it was read. */
  readonly changeCounter: number;
  /** The record keys behind a udid. */
  byUdid(udid: string): ReadonlyArray<Pick<DeviceSnapshot, 'key'>>;
}

/** Whether a device answers an inventory in its state: each source says it of its own (DeviceSource.readyState). */
export type ReadyOf = (device: Pick<DeviceSnapshot, 'platform' | 'state'>) => boolean;

/** adb's word for a device that answers: the default when no source says otherwise (the planner's own tests). */
const defaultReady: ReadyOf = (d) => d.state === 'device';

export type Trigger =
  | 'start'
  | 'schedule'
  | 'watchdog'
  | 'devices-changed'
  | 'source-resumed'
  | 'source-settled'
  | 'requested'
  | 'resend'
  | 'failed-device-retry'
  | 'inventory-retry';

/**
 * A device whose inventories failed N times in a row is asked again backoffBound(N) after its last failure (or its last
 * ask, while one runs), without jitter: 10 s, 20 s, 40 s, up to 5 min (README: "the agent retries less and less
 * often").
 */
export const PROBE_RETRY: BackoffPolicy = { firstMs: 10_000, maxMs: 5 * 60_000 };

/** How often the start report looks again whether every source has listed, while it waits for them. */
const LISTING_POLL_MS = 100;
/** Device changes are reported at most this long after the first, however they keep coming. */
const MAX_CHANGE_WAIT_MS = 1_500;
/** Reports other than the schedule's own tick that may go one after the other: the budget's tokens when full. */
const REPORT_BURST = 3;
/** One token of the report budget comes back this often: with 3 tokens, at most 12 such reports in any 60 s. */
const REPORT_REFILL_MS = 6_000;
/** A lost schedule tick is made up this long after it was due. */
const WATCHDOG_SLACK_MS = 10_000;

/** The schedule's own reports: everything else is news, which the cloud backoff resends. */
const SCHEDULED: ReadonlySet<Trigger> = new Set(['schedule', 'watchdog']);

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
  | {
      delivered: false;
      failure: Failure;
      /** How long the cloud asked to wait (Retry-After on 429 or 503). */
      retryAfterMs?: number;
    };

/** One report to make, as the planner (or a one-shot command) decided it: everything the reporter needs, nothing left to work out. */
export interface ReportPlan {
  request: CollectRequest;
  /** Why: the planner's triggers, for the log. */
  reason: string;
  /** Whether every source's listing can be taken as complete: only then is an absent device gone. */
  complete: boolean;
  /** Whether every source had answered its first listing when the report was planned: only such a report counts for /healthz. */
  listed: boolean;
  /** Epoch ms after which no retry of this report may start (the next scheduled report). */
  deadline: number;
}

export interface PlannedReport extends ReportPlan {
  triggers: Trigger[];
  /** Record keys to inventory afresh; a ready device outside it keeps its last inventory. */
  refresh: Set<string>;
  /** Record keys not to inventory in this report whatever refresh says: their inventories keep failing and their next try is later. */
  hold: Set<string>;
}

export interface PlannerOptions {
  /** Time between scheduled reports. */
  periodMs: number;
  /** Upper bound of the random delay of a scheduled report. */
  jitterMs: number;
  /** Device changes are gathered this long after the last one, at most MAX_CHANGE_WAIT_MS after the first. */
  debounceMs: number;
  /** The start report waits a random time under this (default 0): a fleet restarted together does not report in one second. */
  startSpreadMs?: number;
  /** The random source of jitter (the agent's clock's). */
  random?: () => number;
  /** Whether every source has answered its first full listing (default: always). */
  listed?: () => boolean;
  /**
   * Whether the sources list fewer devices than the last run reported (default: never): a freshly started adb server
   * lists none while it still enumerates USB, and the start report waits for them until adb's list has settled (the
   * settle time its source gave when it connected), within firstListingWaitMs.
   */
  returning?: () => boolean;
  /**
   * How long after start() the start report waits for every source's first listing (default 0: it does not wait). Past
   * it, the start report goes with what is listed, and is not taken as reflecting the listing.
   */
  firstListingWaitMs?: number;
  /** Epoch ms after which no retry of a report planned now may start: the next scheduled report (default: none). */
  deadline?: () => number;
  /** Which devices answer an inventory (default: adb's state `device`). */
  ready?: ReadyOf;
}

export class ReportPlanner {
  private readonly o: Required<PlannerOptions>;
  readonly failed = new FailedDevicePolicy();
  private readonly cloud: CloudBackoff;
  /** The report budget of everything but the schedule's own tick. */
  private readonly budget: TokenBucket;
  /** The report in flight took a token: it spends it when it ends. */
  private spends = false;
  /** The registry's change counter when the last report started: records changed after it are refreshed. */
  private seenChange = 0;
  /** The device changes not yet reported: when the first and the last came. */
  private change: { first: number; last: number } | undefined;
  private readonly immediate = new Set<Trigger>();
  private startAt = -Infinity;
  /** How long the start report waits at most for every source's first listing. */
  private listingWaitUntil = -Infinity;
  private inFlight = false;
  private lastStartAt: number | undefined;
  /** The last schedule tick, taken or dropped: the schedule is alive, the watchdog waits. */
  private lastTickAt = -Infinity;
  /** When a source's tracking coming back last asked for a full report. */
  private lastResumeAt = -Infinity;
  /** The report in flight carries news, not only the schedule's refresh. */
  private carriesNews = false;
  /** When adb's device list counts as complete again after it (re)connected. */
  private settleAt: number | undefined;
  private settleDue = false;

  constructor(
    private readonly devices: PlannerDevices,
    options: PlannerOptions,
  ) {
    this.o = {
      startSpreadMs: 0,
      random: systemClock.random,
      listed: () => true,
      returning: () => false,
      firstListingWaitMs: 0,
      deadline: () => Infinity,
      ready: defaultReady,
      ...options,
    };
    this.cloud = new CloudBackoff(this.o.periodMs, this.o.random);
    this.budget = new TokenBucket({ capacity: REPORT_BURST, refillMs: REPORT_REFILL_MS });
  }

  // ---- events ----

  /** The first report, after a random part of startSpreadMs. */
  start(now: number) {
    this.startAt = now + this.o.random() * this.o.startSpreadMs;
    this.listingWaitUntil = now + this.o.firstListingWaitMs;
    this.immediate.add('start');
  }

  /** The schedule's time came (the scheduler has already spread it over the period). */
  scheduleTick(now: number) {
    this.lastTickAt = now;
    // While the cloud fails, a tick soon after the last attempt is dropped: the next one carries the resend.
    if (this.cloud.acceptsTick(now)) this.immediate.add('schedule');
  }

  /** An operator asked for a full report (SIGHUP). */
  requested() {
    this.immediate.add('requested');
  }

  /**
   * A source's tracking came back: the same devices may be listed, but inventories may have been cut off (the Android
   * source forgives those). A tracker that keeps dying (a crash-looping adb server, a tunnel that cuts idle
   * connections) must not make a report each time: a full report at most once a period; meanwhile changes are reported
   * as changes.
   */
  sourceResumed(now: number) {
    if (now - this.lastResumeAt < this.o.periodMs) return;
    this.lastResumeAt = now;
    this.immediate.add('source-resumed');
  }

  /**
   * A source's tracking connected (at start, or after its service restarted); its listing is taken as complete settleMs
   * later, as the source says (a device absent before then may still be enumerating, not gone). With several sources,
   * the latest settle time holds.
   */
  sourceConnected(now: number, settleMs: number) {
    this.settleAt = Math.max(this.settleAt ?? 0, now + settleMs);
    this.settleDue = true;
  }

  /** Nothing waits for adb's list to settle (every device reported before was seen again): no report for it. */
  settleNotNeeded() {
    this.settleDue = false;
  }

  /** Whether adb's device list can be taken as complete: a device absent from it is gone. */
  listSettled(now: number) {
    return this.settleAt !== undefined && now >= this.settleAt;
  }

  /**
   * A source's listing changed (the registry already holds the new states; a new state is a new connection, so a
   * replugged wedged phone is asked at once), or an inventory a report did not wait for brought news.
   */
  devicesChanged(now: number) {
    this.change = { first: this.change?.first ?? now, last: now };
  }

  // ---- plans ----

  /** When take() has something to hand out; undefined while a report is in flight. */
  nextAt(now: number) {
    if (this.inFlight) return undefined;
    // A source's first listing says nothing when it comes: look again shortly.
    const earliest = Math.min(...this.dueTimes(now).values(), this.awaitingListing(now) ? now + LISTING_POLL_MS : Infinity);
    return earliest === Infinity ? undefined : Math.max(now, earliest);
  }

  /** Whether the start report still waits for a source's first listing: before it, it would claim no devices a source lists. */
  private awaitingListing(now: number) {
    if (!this.immediate.has('start')) return false;
    return !this.o.listed() || (this.o.returning() && !this.listSettled(now));
  }

  /** The report due at `now`, marked as in flight; undefined when none is due or one is in flight. */
  take(now: number): PlannedReport | undefined {
    if (this.inFlight) return undefined;
    const triggers = [...this.dueTimes(now)].filter(([, at]) => at <= now).map(([t]) => t);
    if (triggers.length === 0) return undefined;
    const refresh = new Set<string>();
    const hold = new Set<string>();
    // Every report but the schedule's own waited for a token (dueTimes); what rides along with the schedule's goes free.
    this.spends = !triggers.includes('schedule');
    const full = triggers.some((t) => t === 'start' || t === 'schedule' || t === 'watchdog' || t === 'source-resumed' || t === 'requested');
    // A full report answers a request still waiting for a token: it reads everything the request asked for.
    if (full && this.immediate.has('requested') && !triggers.includes('requested')) triggers.push('requested');
    for (const d of this.devices.list()) {
      if (!this.o.ready(d)) continue;
      if (d.failures > 0) {
        // Asked again only once its backoff has passed (counted from its last failure or, while one runs, its last
        // ask), not on every report.
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
    if (triggers.includes('source-settled')) this.settleDue = false;
    // News rides along even when its own trigger is held for the schedule's report.
    this.carriesNews = triggers.some((t) => !SCHEDULED.has(t)) || this.change !== undefined || failedDue.length > 0;
    // A request still waiting for a token stays; every other immediate trigger was taken.
    const requestWaits = this.immediate.has('requested') && !triggers.includes('requested');
    this.immediate.clear();
    if (requestWaits) this.immediate.add('requested');
    this.change = undefined;
    this.cloud.started();
    this.inFlight = true;
    this.lastStartAt = now;
    const listed = this.o.listed();
    return {
      triggers,
      refresh,
      hold,
      request: { refresh, hold },
      reason: triggers.join(', '),
      listed,
      // Absent means gone only once every source has listed its devices and adb had time to enumerate USB.
      complete: listed && this.listSettled(now),
      // A retry chain never outlives the next scheduled report.
      deadline: this.o.deadline(),
    };
  }

  /**
   * The report handed out by take() ended. Its notes: the failed devices' news (FailedDevicePolicy.record); `unsent`, the
   * failedDevices entries naming a udid the report did not carry (logged, never kept); `resendAt`, when a not-delivered
   * report goes out again (undefined: with the next scheduled report); `failures`, reports in a row the cloud did not
   * take (0 after a delivery or a refusal).
   */
  finished(result: ReportResult, now: number) {
    this.inFlight = false;
    // Spent at the end, not the start: the PUT went in between, so the budget bounds the PUTs the cloud sees.
    if (this.spends) this.budget.spend(now);
    this.spends = false;
    if (!result.delivered) {
      if (result.failure === 'transient') {
        this.cloud.failed({ now, carriedNews: this.carriesNews, retryAfterMs: result.retryAfterMs });
        // A tick that came while this attempt was in flight is not a second attempt right after it: the backoff's next one carries it.
        this.immediate.delete('schedule');
      } else this.cloud.reset();
      return { newlyFailed: [], recovered: [], unsent: [], resendAt: this.cloud.resendDue(), failures: this.cloud.failures };
    }
    this.cloud.reset();
    const sent = new Set(result.sent);
    const unsent = result.failedDevices.filter((f) => !sent.has(f.udid));
    const notes = this.failed.record(
      result.sent,
      result.failedDevices.filter((f) => sent.has(f.udid)),
      now,
    );
    // A device no longer reported (unplugged, its UNPLUGGED record sent) has nothing left to retry.
    this.failed.retain(sent);
    return { ...notes, unsent, resendAt: undefined, failures: 0 };
  }

  // ---- introspection ----

  /** Every retry time the planner holds or reads (resend, failed devices, inventories), for checks. */
  plannedRetries() {
    const times = this.probeRetries();
    for (const f of this.failed.current()) times.push(f.nextRetryAt);
    const resend = this.cloud.resendDue();
    if (resend !== undefined) times.push(resend);
    return times;
  }

  /** When each ready device whose inventories keep failing, none being asked now, is asked again. */
  private probeRetries() {
    return this.devices.list().flatMap((d) => (this.o.ready(d) && d.failures > 0 && !d.probing ? [this.retryAt(d)] : []));
  }

  /** When a device whose inventories keep failing is asked again. */
  private retryAt(d: Pick<DeviceSnapshot, 'failures' | 'failure' | 'askedAt'>) {
    const from = Math.max(d.failure?.at ?? -Infinity, d.askedAt ?? -Infinity);
    return from + backoffBound(d.failures, PROBE_RETRY);
  }

  private dueTimes(now: number) {
    const due = new Map<Trigger, number>();
    const waiting = this.awaitingListing(now);
    const startAt = waiting ? Math.max(this.startAt, this.listingWaitUntil) : this.startAt;
    for (const t of this.immediate) due.set(t, t === 'start' ? startAt : -Infinity);
    // Once adb's list counts as complete, the devices that did not come back go out as UNPLUGGED.
    if (this.settleDue && this.settleAt !== undefined) due.set('source-settled', this.settleAt);
    if (this.change) due.set('devices-changed', Math.min(this.change.last + this.o.debounceMs, this.change.first + MAX_CHANGE_WAIT_MS));
    const failedAt = this.failed.nextRetryAt();
    if (failedAt !== undefined) due.set('failed-device-retry', failedAt);
    const probeAt = Math.min(...this.probeRetries());
    if (probeAt !== Infinity) due.set('inventory-retry', probeAt);
    const resendAt = this.cloud.resendDue();
    if (resendAt !== undefined) due.set('resend', resendAt);
    // Nothing goes before the start report while it waits for the listings: it is the first report, and says them all.
    if (waiting) for (const [t, at] of due) if (t !== 'start') due.set(t, Math.max(at, startAt));
    const lastAlive = Math.max(this.lastStartAt ?? -Infinity, this.lastTickAt);
    if (this.lastStartAt !== undefined) due.set('watchdog', lastAlive + this.o.periodMs + this.o.jitterMs + WATCHDOG_SLACK_MS);

    // One budget for every trigger but the schedule's tick, device changes and SIGHUP loops included.
    const tokenAt = this.budget.freeAt(now);
    const holds = this.cloud.holds([...due.keys()].some((t) => !SCHEDULED.has(t)));
    for (const [t, at] of due) {
      // The schedule's own tick keeps its time (its period bounds it; tests and labs run schedules of seconds).
      const floor = Math.max(SCHEDULED.has(t) ? holds.schedule : holds.news, t === 'schedule' ? -Infinity : tokenAt);
      if (floor === Infinity) due.delete(t);
      else due.set(t, Math.max(at, floor));
    }
    return due;
  }
}

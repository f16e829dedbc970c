// How an agent waits while the cloud does not take its reports: one backoff for all reports, not one per report, so
// that a long outage costs the cloud no more than the schedule does, and the fleet's return after it is no busier than
// a normal period. Pure: the caller passes the time in.
//
// - A report that carried no news (only the schedule) is not resent: the next scheduled report carries the same
//   inventory, fresher, at this host's own place in the period.
// - News (a device change, the start, an operator's request, retries of devices) that did not get through is resent
//   after 10-20 s, then 20-40 s after the next failure, and so on; everything that comes up meanwhile waits for that
//   resend instead of going on its own. Once the wait reaches the schedule's period it is the schedule itself: news
//   waits for the first scheduled report at least half a period after the failure.
// - Schedules longer than maxMs (5 min) would leave news waiting for hours: there the resends go on, 2.5-5 min apart.
// - Retry-After (429, 503) is a time before which no report goes, scheduled ones included, plus a random part of up to
//   half of it (at most half a period), so that hosts told the same thing at once do not come back at once; the
//   schedule goes on with its first tick after that time.

import { backoffBound, backoffDelay, type BackoffPolicy } from '../util/backoff.js';

const POLICY: BackoffPolicy = { firstMs: 20_000, maxMs: 5 * 60_000, factor: 2, jitter: 0.5 };

/** Longest Retry-After honoured: a cloud asking for a day would silence its fleet for a day. */
const MAX_RETRY_AFTER_MS = 3_600_000;

export interface DeliveryFailure {
  now: number;
  /** The report carried news (anything but the schedule's own refresh). */
  carriedNews: boolean;
  /** What the cloud asked for with Retry-After. */
  retryAfterMs?: number;
}

export class CloudBackoff {
  private count = 0;
  /** When news that did not get through goes again; undefined while it waits for the schedule. */
  private resendAt: number | undefined;
  /** No report of any kind before this (Retry-After, jitter on top). */
  private notBefore: number | undefined;
  /** Schedule ticks before this are dropped: the resend is the first scheduled report half a period after the failure. */
  private ticksFrom: number | undefined;
  /** News did not get through: it is resent at resendAt. */
  private owed = false;

  constructor(
    /** The schedule's period (its longest gap). */
    private readonly periodMs: number,
    private readonly random: () => number,
  ) {}

  /** Reports in a row the cloud did not take. */
  get failures() {
    return this.count;
  }

  /** A report was not delivered for a reason that may pass (network, timeout, 408, 429, 5xx). */
  failed({ now, carriedNews, retryAfterMs }: DeliveryFailure) {
    this.count++;
    this.owed ||= carriedNews;
    const { periodMs } = this;
    if (periodMs <= POLICY.maxMs && backoffBound(this.count, POLICY) >= periodMs) {
      this.resendAt = undefined;
      this.ticksFrom = now + periodMs / 2;
    } else {
      this.resendAt = now + backoffDelay(this.count, POLICY, this.random());
      this.ticksFrom = undefined;
    }
    if (retryAfterMs === undefined) {
      this.notBefore = undefined;
    } else {
      const wait = Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS);
      this.notBefore = now + wait + (this.random() * Math.min(wait, periodMs)) / 2;
      // The schedule's next report is the first tick after it, at this host's own place in the period, not a report at the end of the wait.
      this.ticksFrom = Math.max(this.ticksFrom ?? -Infinity, this.notBefore);
    }
  }

  /** A report was delivered, or refused for a reason waiting cannot cure (4xx, credentials): the backoff starts over. */
  reset() {
    this.count = 0;
    this.owed = false;
    this.resendAt = this.notBefore = this.ticksFrom = undefined;
  }

  /** Whether a schedule tick at `now` is a report; false while the resend waits for a later one. */
  acceptsTick(now: number) {
    return this.ticksFrom === undefined || now >= this.ticksFrom;
  }

  /** When the news of a failed report goes again, if it has a time of its own (else the schedule carries it). */
  resendDue() {
    return this.owed && this.resendAt !== undefined ? Math.max(this.resendAt, this.notBefore ?? -Infinity) : undefined;
  }

  /**
   * The earliest start of a report: `news` for reports that carry news, `schedule` for a report of the schedule alone;
   * newsPending: something besides the schedule waits to be reported.
   */
  holds(newsPending: boolean) {
    const all = this.notBefore ?? -Infinity;
    if (this.count === 0) return { news: all, schedule: all };
    if (this.resendAt === undefined) return { news: Infinity, schedule: all };
    const resend = Math.max(all, this.resendAt);
    // News waiting for its resend takes the schedule's report along rather than going twice.
    return { news: resend, schedule: this.owed || newsPending ? resend : all };
  }

  /** A report started: it carries whatever news was owed (a failure of it makes the news owed again). */
  started() {
    this.owed = false;
  }
}

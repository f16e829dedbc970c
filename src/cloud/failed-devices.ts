// Devices the cloud answered in failedDevices: each (udid, message) logged once, and retried on a per-device backoff so
// a device the cloud keeps refusing makes no report storm. Pure: the caller passes the time in.

import type { FailedDevice } from './types.js';
import { compareStrings } from '../util/compare.js';
import { backoffBound, type BackoffPolicy } from '../util/backoff.js';

/** A failed device's retries: 30 s after the first refusal, doubling up to 30 min. */
const RETRY: BackoffPolicy = { firstMs: 30_000, maxMs: 30 * 60_000 };

interface FailedDeviceState {
  udid: string;
  /** The cloud's latest reason. */
  message: string;
  /** Epoch ms of the first refusal in the current run of refusals. */
  since: number;
  /** Consecutive reports the cloud refused it in. */
  attempts: number;
  nextRetryAt: number;
  /** The reasons already logged for it (current() leaves them out). */
  seenMessages: Set<string>;
}

export class FailedDevicePolicy {
  /**
   * The cloud's refusals, by udid, each kept until a report it accepts, with the reasons already logged: the policy's
   * own, since a refusal is of a udid, whichever connection carried it.
   */
  private readonly entries = new Map<string, FailedDeviceState>();

  constructor(private readonly retry = RETRY) {}

  /** Records the answer to a delivered report that carried `sentUdids`. */
  record(sentUdids: readonly string[], failed: readonly FailedDevice[], now: number) {
    /** (udid, message) pairs not seen before for a failing device: log these once at warn level. */
    const newlyFailed: FailedDevice[] = [];
    const failedNow = new Set<string>();
    for (const f of failed) {
      // The cloud may list a udid twice; count one refusal per report.
      if (failedNow.has(f.udid)) continue;
      failedNow.add(f.udid);
      let entry = this.entries.get(f.udid);
      if (!entry) {
        entry = { udid: f.udid, message: f.message, since: now, attempts: 0, nextRetryAt: now, seenMessages: new Set() };
        this.entries.set(f.udid, entry);
      }
      if (!entry.seenMessages.has(f.message)) {
        entry.seenMessages.add(f.message);
        newlyFailed.push({ udid: f.udid, message: f.message });
      }
      entry.message = f.message;
      entry.attempts += 1;
      entry.nextRetryAt = now + this.backoff(entry.attempts);
    }
    /** Devices that failed before and were accepted now. */
    const recovered: string[] = [];
    for (const udid of sentUdids) {
      if (!failedNow.has(udid) && this.entries.delete(udid)) recovered.push(udid);
    }
    return { newlyFailed, recovered };
  }

  /** Failed devices whose backoff has elapsed: worth a report that includes them again. */
  dueForRetry(now: number) {
    return [...this.entries.values()].filter((e) => e.nextRetryAt <= now).map((e) => e.udid);
  }

  /** The earliest retry time of any failed device, or undefined when none failed. */
  nextRetryAt() {
    return this.entries.size === 0 ? undefined : Math.min(...[...this.entries.values()].map((e) => e.nextRetryAt));
  }

  /** Snapshot for status and metrics, oldest failure first. */
  current() {
    return [...this.entries.values()]
      .map(({ udid, message, since, attempts, nextRetryAt }) => ({ udid, message, since, attempts, nextRetryAt }))
      .sort((a, b) => a.since - b.since || compareStrings(a.udid, b.udid));
  }

  /** Keeps only the devices still reported: one that is gone has nothing left to retry. */
  retain(udids: ReadonlySet<string>) {
    for (const udid of this.entries.keys()) if (!udids.has(udid)) this.entries.delete(udid);
  }

  /** A report retrying these devices started: their next retry moves a step ahead, so none is left in the past for ever. */
  defer(udids: Iterable<string>, now: number) {
    for (const udid of udids) {
      const entry = this.entries.get(udid);
      if (entry) entry.nextRetryAt = now + this.backoff(entry.attempts);
    }
  }

  private backoff(attempts: number) {
    return backoffBound(Math.max(1, attempts), this.retry);
  }
}

const advice: Array<[RegExp, string]> = [
  [
    /capabilit|required|missing/i,
    "The device's inventory lacks a field the cloud requires: check that the device is unlocked, fully booted and authorized for adb; if it persists, update the agent.",
  ],
  [
    /already|duplicate|another (node|host)|in use|belongs to/i,
    'The cloud has this udid registered elsewhere (another host node or account): unplug it there or ask the cloud administrator to release it.',
  ],
  [
    /limit|quota|licen[cs]e|exceed|maximum/i,
    "The account's device limit or license is used up: ask the cloud administrator to raise it or remove unused devices.",
  ],
  [/unauthori[sz]ed|forbidden|permission|not allowed|denied/i, 'The account may not add this device: ask the cloud administrator for the permission.'],
  [/not supported|unsupported/i, "The cloud does not support this device or OS version: check the cloud's list of supported devices."],
  [
    /invalid|malformed|format/i,
    'The cloud found a field of this device invalid: update the agent; if it persists, send the udid and this message to the cloud administrator.',
  ],
];

/** A hint for the operator about a failedDevices message. */
export function adviceFor(message: string) {
  for (const [pattern, hint] of advice) if (pattern.test(message)) return hint;
  return "Contact the cloud administrator with the device's udid and this message.";
}

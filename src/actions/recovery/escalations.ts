import { facetKey, type Facet } from '../../devices/facet.js';
import { recordKey, type Platform } from '../../devices/record.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { TRANSPORT_CUT, type TransportCut } from '../../devices/transport-cut.js';

/** A phone adb has listed offline since `since`, across recovery's reconnects. */
export interface OfflineRun {
  /** Monotonic ms when it was first seen offline in this run. */
  since: number;
  /** Offline reconnects recovery asked for in this run since its port was last power-cycled. */
  reconnects: number;
  /** Monotonic ms when it was last listed offline. */
  seen: number;
}

/** One disruptive action recovery took on a phone. */
export interface Taken {
  /** A transport kick, or a hub port power cycle. */
  what: 'kick' | 'cycle';
  /** Monotonic ms. */
  at: number;
  /** The phone's failure count then: within one run of failures, the next action waits for as many again. */
  failures: number;
}

/** What recovery did to one phone within the hour its limits look at: the one history of its kicks and cycles. */
export interface Escalation {
  /** Kicks and power cycles, oldest first. */
  taken: Taken[];
  /** The udid the phone had when recovery last acted on it. */
  udid?: string;
  /** While adb lists it offline: how long, and what reconnecting it has done. */
  offline?: OfflineRun;
}

/**
 * Recovery's facet, kept by the phone's stable key past its records: a
 * kicked phone can drop off adb's list and come back as a new record that
 * has not said who it is yet, and the kick cooldown, the hourly limits and
 * the booking question (which needs the udid) must still count what was done
 * to it. The same holds for an offline phone: `adb reconnect offline` makes
 * adb drop it and list it again, and its offline run (since when, how many
 * reconnects) must survive that for the power cycle to follow them.
 */
const ESCALATIONS = facetKey<Escalation>('recovery', 'device');

/**
 * States that say nothing of the phone either way: adb is still reaching it
 * (newer adb lists a transport being set up as connecting or authorizing).
 * Every other state is the phone answering, which ends an offline run.
 */
const IN_BETWEEN = new Set(['offline', 'connecting', 'authorizing']);

/** The times of one kind of action, oldest first. */
function timesOf(e: Readonly<Escalation>, what: Taken['what']): number[] {
  return e.taken.filter((t) => t.what === what).map((t) => t.at);
}

/**
 * The one history as the recovery policy reads it: every kick and cycle with
 * the failure count then (within a run of failures, the next action waits
 * for as many failures again), and the kicks and cycles apart, with the
 * offline run, for the cooldowns and the hourly limits.
 */
export function historyOf(e: Readonly<Escalation> | undefined): {
  kicks: Array<{ at: number; failures: number }>;
  escalation?: { kicks: number[]; cycles: number[]; offline?: OfflineRun };
} {
  if (!e) return { kicks: [] };
  return {
    kicks: e.taken.map((t) => ({ at: t.at, failures: t.failures })),
    escalation: { kicks: timesOf(e, 'kick'), cycles: timesOf(e, 'cycle'), ...(e.offline && { offline: e.offline }) },
  };
}

/**
 * Recovery's kicks and power cycles, by the serial of the platform's phone
 * (the facet's key is the stable key of the serial). Recovery writes it; nothing else does.
 */
export class Escalations {
  private readonly facet: Facet<Escalation>;
  /** The kicks published for the platform (src/devices/transport-cut.ts): a dropped network phone's message names them. */
  private readonly cuts: Facet<TransportCut>;

  constructor(
    registry: Pick<DeviceRegistry, 'facet'>,
    private readonly platform: Platform,
  ) {
    this.facet = registry.facet(ESCALATIONS);
    this.cuts = registry.facet(TRANSPORT_CUT);
  }

  of(serial: string): Readonly<Escalation> | undefined {
    return this.facet.get(recordKey(this.platform, serial));
  }

  /** Recovery kicked the phone's transport or power-cycled its port at this time, with its failure count then. */
  note(serial: string, what: Taken['what'], at: number, udid: string | undefined, failures = 0): void {
    const entry = this.entry(serial, udid);
    entry.taken.push({ what, at, failures });
    if (what === 'kick') this.cuts.set(recordKey(this.platform, serial), { at, what: 'recovery kicked its adb transport' });
    // A port switched off and on is a new start: the reconnects that come next are counted afresh.
    if (what === 'cycle' && entry.offline) entry.offline.reconnects = 0;
  }

  /**
   * adb's listing as recovery sees it now: a phone listed offline starts or
   * goes on with its offline run, one listed in a state the phone answered
   * in ends it. A phone not listed keeps its run (a reconnect drops it from
   * adb's list for a moment), until prune() finds it unseen for too long.
   */
  listed(devices: ReadonlyArray<{ serial: string; state: string; udid?: string }>, now: number): void {
    for (const { serial, state, udid } of devices) {
      const entry = this.facet.get(recordKey(this.platform, serial));
      if (state === 'offline') {
        const e = entry ?? this.entry(serial, udid);
        if (udid !== undefined) e.udid = udid;
        if (e.offline) e.offline.seen = now;
        else e.offline = { since: now, reconnects: 0, seen: now };
      } else if (entry?.offline && !IN_BETWEEN.has(state)) {
        entry.offline = undefined;
        if (entry.taken.length === 0) this.facet.delete(recordKey(this.platform, serial));
      }
    }
  }

  /** Recovery asked adb to reconnect the offline phone: one more try of its run. */
  reconnected(serial: string): void {
    const run = this.of(serial)?.offline;
    if (run) run.reconnects++;
  }

  /** Forgets what happened before `since`, an offline run not seen since then, and the phones with nothing left. */
  prune(since: number): void {
    for (const [key, cut] of this.cuts.entries()) if (cut.at <= since) this.cuts.delete(key);
    for (const [key, e] of this.facet.entries()) {
      e.taken = e.taken.filter((t) => t.at > since);
      if (e.offline && e.offline.seen <= since) e.offline = undefined;
      if (e.taken.length === 0 && !e.offline) this.facet.delete(key);
    }
  }

  private entry(serial: string, udid: string | undefined): Escalation {
    const key = recordKey(this.platform, serial);
    let entry = this.facet.get(key);
    if (!entry) this.facet.set(key, (entry = { taken: [] }));
    if (udid !== undefined) entry.udid = udid;
    return entry;
  }
}

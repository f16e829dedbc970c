import { facetKey, type Facet } from '../../devices/facet.js';
import { recordKey, type Platform } from '../../devices/record.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { TRANSPORT_CUT, type TransportCut } from '../../devices/transport-cut.js';
import type { Start } from '../../actions/counted-starts.js';

/** A phone adb has listed offline since `since`, across recovery's reconnects. */
interface OfflineRun {
  /** Monotonic ms when it was first seen offline in this run. */
  since: number;
  /** Offline reconnects recovery asked for in this run since its port was last power-cycled. */
  reconnects: number;
  /** Monotonic ms when it was last listed offline. */
  seen: number;
}

/** What recovery knows of a phone past its records that the runner's counted kicks and cycles do not: who, and its offline run. */
interface Escalation {
  /** The udid the phone had when recovery last acted on it. */
  udid?: string;
  /** Monotonic ms of recovery's last kick or cycle of it: the udid is kept as long as that counts. */
  actedAt?: number;
  /** While adb lists it offline: how long, and what reconnecting it has done. */
  offline?: OfflineRun;
  /**
   * Monotonic ms when its inventory last read it under Advanced Protection
   * (src/platforms/facts.ts): kept past the connection that read it, since a
   * phone offline or wedged is the one whose port a cycle would be for.
   */
  protectedUsb?: number;
}

/**
 * Recovery's facet, kept by the phone's stable key past its records: a kicked or reconnected phone comes back as a new
 * record, and the booking question (by udid) and the offline run must survive that.
 */
const ESCALATIONS = facetKey<Escalation>('recovery', 'device');

/** States that say nothing of the phone (adb still reaching it); any other is the phone answering, ending an offline run. */
const IN_BETWEEN = new Set(['offline', 'connecting', 'authorizing']);

/**
 * A phone's history as the policy reads it: every kick and cycle with the failure count then (the next action waits for
 * as many failures again), and the kicks and cycles apart with the offline run, for cooldowns and limits.
 */
export function historyOf(kicks: readonly Start[], cycles: readonly Start[], offline?: OfflineRun) {
  if (kicks.length === 0 && cycles.length === 0 && !offline) return { kicks: [] };
  const times = (starts: readonly Start[]) => starts.map((t) => t.at);
  return {
    kicks: [...kicks, ...cycles].sort((a, b) => a.at - b.at).map((t) => ({ at: t.at, failures: t.failures })),
    escalation: { kicks: times(kicks), cycles: times(cycles), offline },
  };
}

/** Recovery's memory of each phone by the stable key of its serial; only recovery writes it. */
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

  /** Recovery kicked the phone's transport or power-cycled its port at this time (the runner counts the start). */
  acted(serial: string, what: 'kick' | 'cycle', at: number, udid: string | undefined) {
    const entry = this.entry(serial, udid);
    entry.actedAt = at;
    if (what === 'kick') this.cuts.set(recordKey(this.platform, serial), { at, what: 'recovery kicked its adb transport' });
    // A port switched off and on is a new start: the reconnects that come next are counted afresh.
    if (what === 'cycle' && entry.offline) entry.offline.reconnects = 0;
  }

  /** adb's listing now: listed offline starts or continues an offline run, any answering state ends it; unlisted keeps it. */
  listed(devices: ReadonlyArray<{ serial: string; state: string; udid?: string }>, now: number) {
    for (const { serial, state, udid } of devices) {
      const entry = this.facet.get(recordKey(this.platform, serial));
      if (state === 'offline') {
        const e = this.entry(serial, udid);
        e.offline ??= { since: now, reconnects: 0, seen: now };
        e.offline.seen = now;
      } else if (entry?.offline && !IN_BETWEEN.has(state)) {
        entry.offline = undefined;
        this.tidy(recordKey(this.platform, serial), entry);
      }
    }
  }

  /**
   * What the phone's inventory read of Advanced Protection on its current
   * connection: on, off, or nothing read (undefined: what was read before stands).
   */
  protection(serial: string, on: boolean | undefined, now: number) {
    const key = recordKey(this.platform, serial);
    const e = this.facet.get(key);
    if (on === true) this.entry(serial, undefined).protectedUsb = now;
    else if (on === false && e) {
      e.protectedUsb = undefined;
      this.tidy(key, e);
    }
  }

  /** Recovery asked adb to reconnect the offline phone: one more try of its run. */
  reconnected(serial: string) {
    const run = this.of(serial)?.offline;
    if (run) run.reconnects++;
  }

  /** Forgets an action before `since`, an offline run not seen since then, and the phones with nothing left. */
  prune(since: number) {
    for (const [key, cut] of this.cuts.entries()) if (cut.at <= since) this.cuts.delete(key);
    for (const [key, e] of this.facet.entries()) {
      if (e.actedAt !== undefined && e.actedAt <= since) e.actedAt = undefined;
      if (e.offline && e.offline.seen <= since) e.offline = undefined;
      if (e.protectedUsb !== undefined && e.protectedUsb <= since) e.protectedUsb = undefined;
      this.tidy(key, e);
    }
  }

  /** Forgets a phone recovery keeps nothing of any more. */
  private tidy(key: string, e: Escalation) {
    if (e.actedAt === undefined && !e.offline && e.protectedUsb === undefined) this.facet.delete(key);
  }

  private entry(serial: string, udid: string | undefined) {
    const key = recordKey(this.platform, serial);
    let entry = this.facet.get(key);
    if (!entry) this.facet.set(key, (entry = {}));
    if (udid !== undefined) entry.udid = udid;
    return entry;
  }
}

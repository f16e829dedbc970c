/** A phone adb has listed offline since `since`, across recovery's reconnects. */
export interface OfflineRun {
  /** Monotonic ms when it was first seen offline in this run. */
  since: number;
  /** Offline reconnects recovery asked for in this run since its port was last power-cycled. */
  reconnects: number;
  /** Monotonic ms when it was last listed offline. */
  seen: number;
}

/** What recovery did to one phone within the hour its limits look at. */
export interface Escalation {
  /** Transport kicks (monotonic ms). */
  kicks: number[];
  /** Hub port power cycles (monotonic ms). */
  cycles: number[];
  /** The udid the phone had when recovery last acted on it. */
  udid?: string;
  /** While adb lists it offline: how long, and what reconnecting it has done. */
  offline?: OfflineRun;
}

/**
 * States that say nothing of the phone either way: adb is still reaching it
 * (newer adb lists a transport being set up as connecting or authorizing).
 * Every other state is the phone answering, which ends an offline run.
 */
const IN_BETWEEN = new Set(['offline', 'connecting', 'authorizing']);

/**
 * Recovery's kicks and power cycles, by adb serial. They live in the
 * registry beside the connection records because they outlive them: a
 * kicked phone can drop off adb's list and come back as a new record that
 * has not said who it is yet, and the kick cooldown, the hourly limits and
 * the booking question (which needs the udid) must still count what was done
 * to it. The same holds for an offline phone: `adb reconnect offline` makes
 * adb drop it and list it again, and its offline run (since when, how many
 * reconnects) must survive that for the power cycle to follow them.
 * Recovery writes it; nothing else does.
 */
export class Escalations {
  private readonly bySerial = new Map<string, Escalation>();

  of(serial: string): Readonly<Escalation> | undefined {
    return this.bySerial.get(serial);
  }

  /** Recovery kicked the phone's transport or power-cycled its port at this time. */
  note(serial: string, what: 'kick' | 'cycle', at: number, udid: string | undefined): void {
    const entry = this.entry(serial, udid);
    (what === 'kick' ? entry.kicks : entry.cycles).push(at);
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
      const entry = this.bySerial.get(serial);
      if (state === 'offline') {
        const e = entry ?? this.entry(serial, udid);
        if (udid !== undefined) e.udid = udid;
        if (e.offline) e.offline.seen = now;
        else e.offline = { since: now, reconnects: 0, seen: now };
      } else if (entry?.offline && !IN_BETWEEN.has(state)) {
        entry.offline = undefined;
        if (entry.kicks.length === 0 && entry.cycles.length === 0) this.bySerial.delete(serial);
      }
    }
  }

  /** Recovery asked adb to reconnect the offline phone: one more try of its run. */
  reconnected(serial: string): void {
    const run = this.bySerial.get(serial)?.offline;
    if (run) run.reconnects++;
  }

  /** Forgets what happened before `since`, an offline run not seen since then, and the phones with nothing left. */
  prune(since: number): void {
    for (const [serial, e] of this.bySerial) {
      e.kicks = e.kicks.filter((at) => at > since);
      e.cycles = e.cycles.filter((at) => at > since);
      if (e.offline && e.offline.seen <= since) e.offline = undefined;
      if (e.kicks.length === 0 && e.cycles.length === 0 && !e.offline) this.bySerial.delete(serial);
    }
  }

  private entry(serial: string, udid: string | undefined): Escalation {
    let entry = this.bySerial.get(serial);
    if (!entry) this.bySerial.set(serial, (entry = { kicks: [], cycles: [] }));
    if (udid !== undefined) entry.udid = udid;
    return entry;
  }
}

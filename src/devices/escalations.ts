/** What recovery did to one phone within the hour its limits look at. */
export interface Escalation {
  /** Transport kicks (monotonic ms). */
  kicks: number[];
  /** Hub port power cycles (monotonic ms). */
  cycles: number[];
  /** The udid the phone had when recovery last acted on it. */
  udid?: string;
}

/**
 * Recovery's kicks and power cycles, by adb serial. They live in the
 * registry beside the connection records because they outlive them: a
 * kicked phone can drop off adb's list and come back as a new record that
 * has not said who it is yet, and the kick cooldown, the hourly limits and
 * the booking question (which needs the udid) must still count what was done
 * to it. Recovery writes it; nothing else does.
 */
export class Escalations {
  private readonly bySerial = new Map<string, Escalation>();

  of(serial: string): Readonly<Escalation> | undefined {
    return this.bySerial.get(serial);
  }

  /** Recovery kicked the phone's transport or power-cycled its port at this time. */
  note(serial: string, what: 'kick' | 'cycle', at: number, udid: string | undefined): void {
    let entry = this.bySerial.get(serial);
    if (!entry) this.bySerial.set(serial, (entry = { kicks: [], cycles: [] }));
    if (udid !== undefined) entry.udid = udid;
    (what === 'kick' ? entry.kicks : entry.cycles).push(at);
  }

  /** Forgets what happened before `since`, and the phones with nothing left. */
  prune(since: number): void {
    for (const [serial, e] of this.bySerial) {
      e.kicks = e.kicks.filter((at) => at > since);
      e.cycles = e.cycles.filter((at) => at > since);
      if (e.kicks.length === 0 && e.cycles.length === 0) this.bySerial.delete(serial);
    }
  }
}

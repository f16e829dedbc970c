// The in-service clock: each phone in one state at a time, every second of
// it credited once to a slot (its state, and for an out-of-service state the
// layer blamed), on the phone, its port, the port's hub and the host alike.
// Pure but for the wall time each monotonic moment is booked under, which the
// caller gives. A phone's seconds in service are credited only up to the last
// evidence that it worked (an inventory that answered, or the moment it came
// into service), so that a failure found later (a shell that hung without a
// word from adb) can be dated back to halfway between that evidence and the
// inventory that found it; a phone whose inventories fail is credited up to
// its latest failure, so that its return, found by the next inventory that
// answers, is dated halfway too: the figure neither flatters nor blames the
// phone for the time nobody asked it.
import type { Layer, PhoneState } from '../../devices/phone-state.js';
import type { Blame } from './classify.js';
import { slotOf, Tally } from './tally.js';
import { hubOfPort } from '../../util/usb-path.js';
import { setBounded } from '../../util/bounded-set.js';

interface Track {
  udid: string;
  serial: string;
  /** The USB port it is on, or was last on ("1-1.4.2"), and its hub ("1-1.4"). */
  port?: string;
  hub?: string;
  state: PhoneState;
  layer?: Layer;
  /** Monotonic ms it entered its state. */
  since: number;
  /** Monotonic ms up to which its seconds are credited. */
  credited: number;
  /** In service: the latest monotonic ms it is known to have worked; held: the latest it is known to have failed. */
  confirmed: number;
  /** Failing as only its inventories find it (Verdict.held): credited up to `confirmed`. */
  held?: true;
}

export interface Subject {
  track: Track;
  tally: Tally;
}

/** How many phones, ports and hubs the clock follows at most: past that, the one gone longest is forgotten (a lab has tens). */
export const MAX_PHONES = 512;
export const MAX_PORTS = 512;
/** A phone gone this long is forgotten: a phone taken out of the lab for good stops counting against it. */
const FORGET_GONE_MS = 24 * 3_600_000;

export class InServiceClock {
  readonly phones = new Map<string, Subject>();
  readonly ports = new Map<string, { hub: string; tally: Tally }>();
  readonly hubs = new Map<string, Tally>();
  readonly host = new Tally();

  /** `wallOf`: the wall ms a monotonic moment is booked under. */
  constructor(private readonly wallOf: (monotonic: number) => number) {}

  /**
   * What the phone is now, seen at monotonic `at`. A new state starts at `at`,
   * or, leaving service for a failure found late, at `backdate` (never before
   * what is credited already). Returns whether its state or layer changed.
   */
  observe(
    udid: string,
    serial: string,
    verdict: { state: PhoneState; layer?: Blame; fallback?: Layer; held?: true },
    at: number,
    o: { backdate?: number; port?: string } = {},
  ) {
    let subject = this.phones.get(udid);
    const known = subject !== undefined;
    const layerOf = (was: Track | undefined) => {
      if (verdict.state === 'in_service') return undefined;
      if (verdict.layer !== 'carry') return verdict.layer;
      // While it comes back, the time is blamed on what took it out.
      return was && was.state !== 'in_service' ? was.layer : (verdict.fallback ?? 'phone');
    };
    if (!subject) {
      this.bound();
      subject = { track: { udid, serial, state: verdict.state, since: at, credited: at, confirmed: at }, tally: new Tally() };
      this.phones.set(udid, subject);
    }
    const { track } = subject;
    track.serial = serial;
    this.place(track, o.port);
    // A phone new to the clock has no stretch before to carry the blame of.
    const layer = layerOf(known ? track : undefined);
    if (known && track.state === verdict.state && track.layer === layer && track.held === verdict.held) {
      this.credit(subject, at);
      return false;
    }
    const evidenced = track.state === 'in_service' || track.held === true;
    const from = Math.min(at, Math.max(track.credited, evidenced ? (o.backdate ?? at) : at));
    this.creditTo(subject, from);
    track.state = verdict.state;
    if (verdict.held) track.held = true;
    else delete track.held;
    if (layer) track.layer = layer;
    else delete track.layer;
    track.since = from;
    track.confirmed = from;
    this.credit(subject, at);
    return true;
  }

  /** The phone worked at `at` (an inventory answered in full): its time in service up to then is credited. */
  confirm(udid: string, at: number) {
    const subject = this.phones.get(udid);
    if (subject?.track.state !== 'in_service') return;
    subject.track.confirmed = Math.max(subject.track.confirmed, at);
    this.credit(subject, at);
  }

  /** The phone failed at `at` (an inventory that failed): while held, its time failing up to then is credited. */
  failed(udid: string, at: number) {
    const subject = this.phones.get(udid);
    if (!subject?.track.held) return;
    subject.track.confirmed = Math.max(subject.track.confirmed, at);
    this.credit(subject, at);
  }

  /** The agent stops: a held phone's time since its latest failure is credited to its failing (nothing said otherwise). */
  settle(at: number) {
    for (const subject of this.phones.values()) if (subject.track.held) this.creditTo(subject, at);
  }

  /** Credits every phone up to `at` (a phone in service or held up to its last evidence), and forgets those gone too long. */
  creditAll(at: number) {
    for (const [udid, subject] of this.phones) {
      this.credit(subject, at);
      if (subject.track.state === 'gone' && at - subject.track.since > FORGET_GONE_MS) this.phones.delete(udid);
    }
  }

  /** The seconds of a phone in service not credited yet (since its last evidence): shown in the views as in service, never counted. */
  uncredited(subject: Subject, at: number) {
    return subject.track.state === 'in_service' ? Math.max(0, at - subject.track.credited) / 1000 : 0;
  }

  /** The port of a phone's seconds from now on, when known. */
  private place(track: Track, port: string | undefined) {
    if (port === undefined || port === track.port) return;
    track.port = port;
    track.hub = hubOfPort(port);
    if (!this.ports.has(port)) setBounded(this.ports, port, { hub: track.hub, tally: new Tally() }, MAX_PORTS);
  }

  private credit(subject: Subject, at: number) {
    const { track } = subject;
    this.creditTo(subject, track.state === 'in_service' || track.held ? Math.min(at, track.confirmed) : at);
  }

  /** Credits the phone's seconds up to `to` to the slot of its state now. */
  private creditTo(subject: Subject, to: number) {
    const { track } = subject;
    if (!(to > track.credited)) return;
    const slot = slotOf(track.state, track.layer);
    const from = this.wallOf(track.credited);
    const until = from + (to - track.credited);
    track.credited = to;
    subject.tally.add(slot, from, until);
    this.host.add(slot, from, until);
    if (track.port === undefined) return;
    this.ports.get(track.port)?.tally.add(slot, from, until);
    const hub = track.hub!;
    let hubTally = this.hubs.get(hub);
    if (!hubTally) setBounded(this.hubs, hub, (hubTally = new Tally()), MAX_PORTS);
    hubTally.add(slot, from, until);
  }

  /** Room for one more phone: the one gone longest (else the oldest) is forgotten. */
  private bound() {
    if (this.phones.size < MAX_PHONES) return;
    const here = ({ track }: Subject) => Number(track.state !== 'gone');
    const [oldest] = [...this.phones].sort(([, a], [, b]) => here(a) - here(b) || a.track.since - b.track.since);
    if (oldest) this.phones.delete(oldest[0]);
  }
}

// Whether an action may disturb a device, decided without I/O: a phone may be in a customer's test, so a disruptive
// action waits for the cloud's word that it is not booked. The caller asks when told and hands the answer back; the gate
// keeps answers a short while and bounds how often the host asks, so wedged phones cannot flood the cloud.

import type { BookingAnswer } from '../cloud/booking-status.js';
import type { Settings } from '../config/schema.js';
import { isTcpSerial } from '../util/tcp-serial.js';

export interface BookingGateSettings {
  /** How long an answer stands before the cloud is asked again. */
  cacheMs: number;
  /** Status requests of the whole host in any 60 s at most. */
  maxRequestsPerMinute: number;
}

/** What the gate says of a device now: only `free` lets an action go; `ask`: ask the cloud now (already counted); `waiting`: in flight. */
export type BookingVerdict =
  { kind: 'free' } | { kind: 'booked'; answer: number } | { kind: 'unknown'; reason: string; answer?: number } | { kind: 'ask' } | { kind: 'waiting' };

const MINUTE_MS = 60_000;
/** A device refused for the budget counts as waiting its turn this long after it was last refused: every action looks at least this often. */
const WAITING_MS = 15_000;

interface Known {
  answer: BookingAnswer;
  /** Monotonic ms when it came. */
  at: number;
  /** Counts answers, so that the caller can tell a new one from one it has already acted on. */
  seq: number;
}

export class BookingGate {
  private readonly known = new Map<string, Known>();
  private readonly asking = new Set<string>();
  /** Monotonic ms of the status requests of the last minute, oldest first. */
  private sent: number[] = [];
  private seq = 0;
  /** Devices refused for the budget, with when they were last refused: the next request is theirs before a device asked about within the minute. */
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly settings: BookingGateSettings,
    private readonly clock: { monotonic(): number },
  ) {}

  /**
   * The verdict on disturbing the device the cloud knows by this id; undefined for an id the agent does not know.
   * `maxAgeMs`: the oldest answer the caller may act on (readiness's fix); an older one is asked again, never "not booked".
   */
  verdict(deviceId: string | undefined, maxAgeMs = this.settings.cacheMs): BookingVerdict {
    if (deviceId === undefined) return { kind: 'unknown', reason: 'the agent does not know its udid yet, so the cloud cannot be asked' };
    const now = this.clock.monotonic();
    this.prune(now);
    const known = this.known.get(deviceId);
    if (known && now - known.at < Math.min(this.settings.cacheMs, maxAgeMs)) return fromAnswer(known);
    if (this.asking.has(deviceId)) return { kind: 'waiting' };
    // The budget is the host's: a device asked about within the minute yields to one waiting its turn, so one action
    // asking again and again cannot starve another.
    const recent = known !== undefined && now - known.at < MINUTE_MS;
    if (this.sent.length < this.settings.maxRequestsPerMinute && !(recent && this.othersWaiting(deviceId, now))) {
      this.waiting.delete(deviceId);
      this.sent.push(now);
      this.asking.add(deviceId);
      return { kind: 'ask' };
    }
    // Out of budget: an old answer says nothing of now, but a booked or failed one still names why the device is left.
    this.waiting.set(deviceId, now);
    if (known && !('booked' in known.answer && !known.answer.booked)) return fromAnswer(known);
    return { kind: 'unknown', reason: `the agent asks the cloud at most ${this.settings.maxRequestsPerMinute} times a minute and will ask again shortly` };
  }

  /** The cloud's answer (or failure) to a question the verdict asked for. */
  answered(deviceId: string, answer: BookingAnswer) {
    this.asking.delete(deviceId);
    this.known.set(deviceId, { answer, at: this.clock.monotonic(), seq: ++this.seq });
  }

  /** Orders devices by when the cloud was last asked about them (never first), so each gets its turn within the budget. */
  byTurn<T>(devices: readonly T[], idOf: (d: T) => string | undefined) {
    const at = (d: T) => {
      const id = idOf(d);
      return id === undefined ? -Infinity : (this.known.get(id)?.at ?? -Infinity);
    };
    return [...devices].sort((a, b) => at(a) - at(b));
  }

  /** Entries kept, for the boundedness check. */
  size() {
    return this.known.size + this.asking.size + this.sent.length + this.waiting.size;
  }

  /** Whether a device other than this one, not asked about within the minute, is waiting its turn. */
  private othersWaiting(deviceId: string, now: number) {
    for (const id of this.waiting.keys()) {
      if (id === deviceId) continue;
      const at = this.known.get(id)?.at;
      if (at === undefined || now - at >= MINUTE_MS) return true;
    }
    return false;
  }

  private prune(now: number) {
    while (this.sent.length > 0 && now - this.sent[0]! >= MINUTE_MS) this.sent.shift();
    // An answer kept past its cache only names why a device is left alone while the budget is spent: a minute covers that.
    const keep = Math.max(this.settings.cacheMs, MINUTE_MS);
    for (const [id, k] of this.known) if (now - k.at >= keep) this.known.delete(id);
    for (const [id, at] of this.waiting) if (now - at >= WAITING_MS) this.waiting.delete(id);
  }
}

/** The id the cloud knows a device by: its udid, else a USB phone's serial; a TCP device that never said who it is has none. */
export function cloudIdOf(serial: string, udid: string | undefined) {
  return udid ?? (isTcpSerial(serial) ? undefined : serial);
}

function fromAnswer(known: Known): BookingVerdict {
  const { answer, seq } = known;
  if ('unknown' in answer) return { kind: 'unknown', reason: answer.unknown, answer: seq };
  return answer.booked ? { kind: 'booked', answer: seq } : { kind: 'free' };
}

/** The host's booking gate, as the recovery settings bound it. */
export function bookingGateOf(settings: Pick<Settings, 'recovery'>, clock: { monotonic(): number }) {
  const r = settings.recovery;
  return new BookingGate({ cacheMs: r.bookingCacheSeconds * 1000, maxRequestsPerMinute: r.bookingRequestsPerMinute }, clock);
}

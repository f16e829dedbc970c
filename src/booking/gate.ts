// Whether recovery may disturb a device, decided without I/O: a phone may be
// in a customer's test, so a disruptive action waits for the cloud's word
// that it is not booked (issue 27). The caller asks the cloud when told to
// and hands the answer back; the gate keeps the answers a short while, and
// bounds how often the host asks at all, so a fleet of wedged phones cannot
// flood the cloud.

import type { BookingAnswer } from '../cloud/booking-status.js';
import type { Settings } from '../config/schema.js';
import { isTcpSerial } from '../util/tcp-serial.js';

export interface BookingGateSettings {
  /** How long an answer stands before the cloud is asked again. */
  cacheMs: number;
  /** Status requests of the whole host in any 60 s at most. */
  maxRequestsPerMinute: number;
}

/**
 * What the gate says of a device now. Only `free` lets an action go;
 * `ask` means the caller must ask the cloud now (the request is counted
 * against the bound already), `waiting` that a question is in flight.
 */
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
   * The verdict on disturbing the device the cloud knows by this id now;
   * undefined when the agent does not know the id (the cloud cannot be
   * asked about a device it was never told of). `maxAgeMs`: the oldest
   * answer the caller may act on, when its work needs a younger one than
   * the cache keeps (readiness's fix, a write at a time); an older one is
   * asked again, and never says "not booked" meanwhile.
   */
  verdict(deviceId: string | undefined, maxAgeMs = this.settings.cacheMs): BookingVerdict {
    if (deviceId === undefined) return { kind: 'unknown', reason: 'the agent does not know its udid yet, so the cloud cannot be asked' };
    const now = this.clock.monotonic();
    this.prune(now);
    const known = this.known.get(deviceId);
    if (known && now - known.at < Math.min(this.settings.cacheMs, maxAgeMs)) return fromAnswer(known);
    if (this.asking.has(deviceId)) return { kind: 'waiting' };
    // The budget is the host's, shared by every action: a device asked about
    // within the minute yields to one that is waiting its turn, so one action
    // asking again and again (charge control over a full phone) cannot keep
    // another (recovery of a wedged phone) from ever being asked about.
    const recent = known !== undefined && now - known.at < MINUTE_MS;
    if (this.sent.length < this.settings.maxRequestsPerMinute && !(recent && this.othersWaiting(deviceId, now))) {
      this.waiting.delete(deviceId);
      this.sent.push(now);
      this.asking.add(deviceId);
      return { kind: 'ask' };
    }
    // Out of budget: an old answer no longer says anything about now, but a
    // booked or failed one still names why the device is left alone.
    this.waiting.set(deviceId, now);
    if (known && !('booked' in known.answer && !known.answer.booked)) return fromAnswer(known);
    return { kind: 'unknown', reason: `the agent asks the cloud at most ${this.settings.maxRequestsPerMinute} times a minute and will ask again shortly` };
  }

  /** The cloud's answer (or failure) to a question the verdict asked for. */
  answered(deviceId: string, answer: BookingAnswer): void {
    this.asking.delete(deviceId);
    this.known.set(deviceId, { answer, at: this.clock.monotonic(), seq: ++this.seq });
  }

  /**
   * Orders devices so that the one the cloud was asked about longest ago
   * (never, first) is asked first: with more devices waiting than the
   * budget allows, each gets its turn rather than the first listed always.
   */
  byTurn<T>(devices: readonly T[], idOf: (d: T) => string | undefined): T[] {
    const at = (d: T): number => {
      const id = idOf(d);
      return id === undefined ? -Infinity : (this.known.get(id)?.at ?? -Infinity);
    };
    return [...devices].sort((a, b) => at(a) - at(b));
  }

  /** Entries kept, for the boundedness check. */
  size(): number {
    return this.known.size + this.asking.size + this.sent.length + this.waiting.size;
  }

  /** Whether a device other than this one, not asked about within the minute, is waiting its turn. */
  private othersWaiting(deviceId: string, now: number): boolean {
    for (const id of this.waiting.keys()) {
      if (id === deviceId) continue;
      const at = this.known.get(id)?.at;
      if (at === undefined || now - at >= MINUTE_MS) return true;
    }
    return false;
  }

  private prune(now: number): void {
    while (this.sent.length > 0 && now - this.sent[0]! >= MINUTE_MS) this.sent.shift();
    // An answer is worth keeping past its cache only to name why a device is
    // still left alone while the budget is spent; a minute covers that.
    const keep = Math.max(this.settings.cacheMs, MINUTE_MS);
    for (const [id, k] of this.known) if (now - k.at >= keep) this.known.delete(id);
    for (const [id, at] of this.waiting) if (now - at >= WAITING_MS) this.waiting.delete(id);
  }
}

/**
 * The id the cloud knows a device by: its udid once it gave one; before
 * that, a USB phone's adb serial, which it is reported under. A device over
 * TCP that has not said who it is was never reported: nobody can be asked.
 */
export function cloudIdOf(serial: string, udid: string | undefined): string | undefined {
  return udid ?? (isTcpSerial(serial) ? undefined : serial);
}

function fromAnswer(known: Known): BookingVerdict {
  const { answer, seq } = known;
  if ('unknown' in answer) return { kind: 'unknown', reason: answer.unknown, answer: seq };
  return answer.booked ? { kind: 'booked', answer: seq } : { kind: 'free' };
}

/** The host's booking gate, as the recovery settings bound it. */
export function bookingGateOf(settings: Pick<Settings, 'recovery'>, clock: { monotonic(): number }): BookingGate {
  const r = settings.recovery;
  return new BookingGate({ cacheMs: r.bookingCacheSeconds * 1000, maxRequestsPerMinute: r.bookingRequestsPerMinute }, clock);
}

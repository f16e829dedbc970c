// Each phone's flight recorder: a bounded ring of what happened to it, oldest
// first out, and a bounded number of rings (the phone heard of longest ago
// goes first). What goes in is made one line, clipped and masked before it is
// kept (src/devices/incidents.ts, keepable; src/log/redact.ts): a ring never
// holds a secret to leak. Pure but for the masking.
import { keepable, type EventKind, type PhoneRef, type RecordedEvent } from '../../devices/incidents.js';
import { maskString } from '../../log/redact.js';
import { setBounded } from '../../util/bounded-set.js';

/** Rings kept at most: a lab has tens of phones; a flood of serials (a phone that changes its own) cannot grow it. */
export const MAX_RINGS = 1024;

export class Rings {
  /** By the phone's id (its udid once known, else its serial), in the order each was last written. */
  private readonly rings = new Map<string, RecordedEvent[]>();

  constructor(private readonly perPhone: number) {}

  /** The id a phone's ring is kept under; a ring kept under its serial before it said its udid moves to the udid. */
  private idOf(phone: PhoneRef) {
    if (phone.udid === undefined || phone.udid === phone.serial) return phone.serial;
    const early = this.rings.get(phone.serial);
    if (early && !this.rings.has(phone.udid)) {
      this.rings.delete(phone.serial);
      this.rings.set(phone.udid, early);
    }
    return phone.udid;
  }

  add(phone: PhoneRef, kind: EventKind, text: string, at: number) {
    const id = this.idOf(phone);
    const ring = this.rings.get(id) ?? [];
    // Moved last: the ring written longest ago goes first.
    this.rings.delete(id);
    setBounded(this.rings, id, ring, MAX_RINGS);
    ring.push({ at, kind, text: keepable(maskString(text)) });
    if (ring.length > this.perPhone) ring.splice(0, ring.length - this.perPhone);
  }

  /** The phone's ring now, oldest first (a copy). */
  of(phone: PhoneRef) {
    return [...(this.rings.get(this.idOf(phone)) ?? [])];
  }

  get size() {
    return this.rings.size;
  }
}

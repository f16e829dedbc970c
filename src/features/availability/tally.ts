// Seconds by slot (a state, and for an out-of-service state the layer it is
// blamed on), in total and by the hour: the in-service clock credits each
// phone's seconds here, and each phone's port, hub and the host alike. Pure:
// the caller gives the wall times.
import { LAYERS, PHONE_STATES, type Layer, type PhoneState } from '../../devices/phone-state.js';

/** "in_service", or "STATE:LAYER" for a second out of service. */
export type Slot = string;

export const IN_SERVICE: Slot = 'in_service';

export function slotOf(state: PhoneState, layer: Layer | undefined) {
  return state === 'in_service' ? IN_SERVICE : `${state}:${layer ?? 'phone'}`;
}

export function partsOf(slot: Slot) {
  const [state, layer] = slot.split(':') as [PhoneState, Layer | undefined];
  return { state, layer };
}

/** Whether a slot read back from a file is one the agent writes. */
function isSlot(slot: string) {
  const [state, layer, more] = slot.split(':');
  if (more !== undefined || !(PHONE_STATES as readonly string[]).includes(state!)) return false;
  return state === 'in_service' ? layer === undefined : (LAYERS as readonly string[]).includes(layer ?? '');
}

export const HOUR_MS = 3_600_000;
/** Hours kept: a day back from now, and the whole of yesterday for its summary line whenever the agent comes back. */
const HOURS_KEPT = 48;

/** Seconds by slot. */
export type Seconds = Record<Slot, number>;

interface Hour {
  /** Wall ms the hour starts (UTC, on the hour). */
  start: number;
  by: Seconds;
}

export class Tally {
  readonly totals: Seconds = {};
  /** Oldest first, at most HOURS_KEPT. */
  hours: Hour[] = [];

  /** The wall interval [from, to) counted in slot, split across the hours it spans. */
  add(slot: Slot, from: number, to: number) {
    if (!(to > from)) return;
    this.totals[slot] = (this.totals[slot] ?? 0) + (to - from) / 1000;
    for (let t = from; t < to;) {
      const start = Math.floor(t / HOUR_MS) * HOUR_MS;
      const end = Math.min(to, start + HOUR_MS);
      // A wall clock stepped back: counted in the latest hour kept rather than reordering the past.
      let hour = this.hours.at(-1);
      if (!hour || hour.start < start) {
        hour = { start, by: {} };
        this.hours.push(hour);
        if (this.hours.length > HOURS_KEPT) this.hours.splice(0, this.hours.length - HOURS_KEPT);
      }
      hour.by[slot] = (hour.by[slot] ?? 0) + (end - t) / 1000;
      t = end;
    }
  }

  /** The seconds of the hours that start at or after `from` and before `to` (wall ms). */
  within(from: number, to = Infinity) {
    const out: Seconds = {};
    for (const h of this.hours) {
      if (h.start < from || h.start >= to) continue;
      for (const [slot, s] of Object.entries(h.by)) out[slot] = (out[slot] ?? 0) + s;
    }
    return out;
  }

  static from(value: unknown) {
    const t = new Tally();
    if (typeof value !== 'object' || value === null) return t;
    const v = value as { totals?: unknown; hours?: unknown };
    Object.assign(t.totals, seconds(v.totals));
    if (Array.isArray(v.hours))
      t.hours = v.hours
        .flatMap((h) => {
          const start = (h as Hour | null)?.start;
          return typeof start === 'number' && Number.isFinite(start) && start % HOUR_MS === 0 ? [{ start, by: seconds((h as Hour).by) }] : [];
        })
        .sort((a, b) => a.start - b.start)
        .slice(-HOURS_KEPT);
    return t;
  }
}

/** Seconds read back: only slots the agent writes, only finite non-negative numbers. */
function seconds(value: unknown) {
  const out: Seconds = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [slot, s] of Object.entries(value)) if (isSlot(slot) && typeof s === 'number' && Number.isFinite(s) && s >= 0) out[slot] = s;
  return out;
}

/** The share of the seconds in service (0 to 1), or undefined when none were counted. */
export function inServiceShare(s: Seconds) {
  const all = Object.values(s).reduce((a, b) => a + b, 0);
  return all > 0 ? (s[IN_SERVICE] ?? 0) / all : undefined;
}

/** The out-of-service seconds by layer, most first. */
export function outByLayer(s: Seconds) {
  const by = new Map<Layer, number>();
  for (const [slot, secs] of Object.entries(s)) {
    const { layer } = partsOf(slot);
    if (layer) by.set(layer, (by.get(layer) ?? 0) + secs);
  }
  return [...by].sort((a, b) => b[1] - a[1]);
}

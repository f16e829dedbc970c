// Samsung's battery protection (charge.ways = samsung), decided without I/O: a write that turns on a verdict not given
// yet is 'needs-verdict', and the runner asks the gate and decides again. The setting is written only on a fresh "not
// booked", at most once per cooldown, and always read back; a read-back that is not 1, or a phone that reads on and
// still charges well past the cap, is a problem on the device: the operator then needs a hub way.

import type { ProtectionEntry } from './state.js';
import type { BookingVerdict } from '../../booking/gate.js';

/** The value the agent writes: protection on (One UI 3.1.1 to 5: charge capped at 85 %). */
export const PROTECT_ON = '1';

/**
 * Whether a value read means protection is on. Newer One UI keeps other modes under the key (2, 3 for "Maximum, 80 %"
 * in public scripts): a phone protected in a mode someone chose is left in it, not switched to 1.
 */
export function isOn(value: string | undefined) {
  return value !== undefined && /^[1-9][0-9]*$/.test(value);
}
/** The cap that value sets, per Samsung's own wording. */
export const CAP_PERCENT = 85;

export const POLICY = {
  /** The setting is read again this long after the last read: an update or a person can turn it off. */
  recheckMs: 10 * 60_000,
  /** A read that failed is tried again after this. */
  retryMs: 60_000,
  /** At most one write per phone within this. */
  cooldownMs: 60 * 60_000,
  /** Charging at or above this (%) with protection on is past the cap... */
  overPercent: 90,
  /** ...and for longer than this, not honoured. */
  overMs: 30 * 60_000,
};

export type ProtectionSettings = typeof POLICY;

export interface ProtectionLook {
  /** Monotonic ms. */
  now: number;
  /** Whether the phone's maker is Samsung, from its inventory; undefined before it has answered one. */
  samsung: boolean | undefined;
  /** The level and whether it charges, from its last inventory; undefined when it does not say. */
  percent?: number;
  charging?: boolean;
  /** The booking gate's verdict; none yet: a write that turns on it is 'needs-verdict' (asking may cost a status request). */
  verdict?: BookingVerdict;
  /** A read or a write of the phone in flight: the runner's mark (runner.ts, isBusy), not the entry's. */
  busy?: boolean;
  /** When each write of the phone within the last hour started (monotonic ms, oldest first): the runner's count (runner.ts, startsOf). */
  writes: readonly number[];
}

export type ProtectionDecision =
  | {
      kind:
        | 'none'
        /** A write turns on the booking gate's verdict: ask it, and decide again with it. */
        | 'needs-verdict'
        /** Say once that the way does not apply: the phone is not a Samsung. */
        | 'not-samsung'
        /** Read protect_battery. */
        | 'read'
        /** Write protect_battery = 1, then read it back. */
        | 'write'
        /** Protection reads as on and the phone charges past the cap: start timing it. */
        | 'over'
        /** Past the cap longer than overMs with protection on. */
        | 'not-honoured';
    }
  /** No longer charging past the cap: stop timing; with clearFlag, the level is under the mark and a flag on it is over. */
  | { kind: 'under'; clearFlag: boolean };

export function decideProtection(entry: Readonly<ProtectionEntry> | undefined, look: ProtectionLook, s: ProtectionSettings): ProtectionDecision {
  if (look.busy || look.samsung === undefined) return { kind: 'none' };
  if (!look.samsung) return entry?.state === 'not-samsung' ? { kind: 'none' } : { kind: 'not-samsung' };
  if (entry === undefined || entry.state === 'not-samsung') return { kind: 'read' };
  const last = entry.readAt ?? -Infinity;
  if (look.now - last >= (entry.failures > 0 ? s.retryMs : s.recheckMs)) return { kind: 'read' };
  if (entry.value === undefined) return { kind: 'none' };
  if (!isOn(entry.value)) {
    const lastWrite = look.writes.at(-1);
    if (lastWrite !== undefined && look.now - lastWrite < s.cooldownMs) return { kind: 'none' };
    // Only a fresh "not booked": booked, unknown, asking or waiting all leave the phone as it is.
    if (look.verdict === undefined) return { kind: 'needs-verdict' };
    return look.verdict.kind === 'free' ? { kind: 'write' } : { kind: 'none' };
  }
  const high = look.percent !== undefined && look.percent >= s.overPercent;
  if (high && look.charging) {
    if (entry.overSince === undefined) return { kind: 'over' };
    return entry.state !== 'not-honoured' && look.now - entry.overSince >= s.overMs ? { kind: 'not-honoured' } : { kind: 'none' };
  }
  // Held high without charging is what a cap does to a phone that was above it; only a level under the mark ends a flag.
  const clearFlag = entry.state === 'not-honoured' && look.percent !== undefined && !high;
  return entry.overSince !== undefined || clearFlag ? { kind: 'under', clearFlag } : { kind: 'none' };
}

/** The entry after a read (undefined: failed), stamped either way, so a failing phone is asked again after retryMs. */
export function afterRead(entry: Readonly<ProtectionEntry> | undefined, value: string | undefined, now: number): ProtectionEntry {
  const base: ProtectionEntry = { failures: 0, ...entry, state: entry?.state ?? 'pending', readAt: now };
  if (value === undefined) {
    // A problem found stands through a read that failed; otherwise nothing is known, and nothing is written on it.
    const problem = base.state === 'not-taken' || base.state === 'not-honoured';
    return { ...base, state: problem ? base.state : 'unreadable', value: undefined, failures: base.failures + 1, message: problem ? base.message : undefined };
  }
  if (isOn(value)) {
    // Read as on: a flag for a write that did not take is over; one for a cap not honoured stands until the phone is under it.
    const state = base.state === 'not-honoured' ? 'not-honoured' : 'on';
    return { ...base, state, value, failures: 0, message: state === 'on' ? undefined : base.message };
  }
  // Off (again): a write not taken stays a problem; otherwise a write is due.
  const state = base.state === 'not-taken' ? 'not-taken' : 'pending';
  return { ...base, state, value, failures: 0, overSince: undefined, message: state === 'not-taken' ? base.message : undefined };
}

/** The entry after a write and its read-back (undefined: the read-back failed): anything but 1 is the problem. */
export function afterWrite(entry: Readonly<ProtectionEntry>, readBack: string | undefined, now: number): ProtectionEntry {
  const base: ProtectionEntry = { ...entry, readAt: now, failures: 0, value: readBack ?? entry.value };
  if (readBack === PROTECT_ON) return { ...base, state: 'on', message: undefined };
  return { ...base, state: 'not-taken', message: notTaken(readBack) };
}

export function notTaken(readBack: string | undefined) {
  const reads = readBack === undefined ? 'could not be read back' : `reads ${readBack}`;
  return `Samsung battery protection did not take (protect_battery ${reads}); this One UI may not have it: use a hub way (uhubctl/command)`;
}

export function notHonoured(value: string | undefined, percent: number | undefined, overMs: number) {
  return (
    `Samsung battery protection is set but not honoured (protect_battery reads ${value ?? '?'}, yet the battery charged at ${percent ?? '?'} %, ` +
    `past the ${CAP_PERCENT} % cap, for over ${Math.round(overMs / 60_000)} min); this One UI may ignore it: use a hub way (uhubctl/command)`
  );
}

/** The entry after a look that timed the phone against the cap (see ProtectionDecision). */
export function afterLook(entry: Readonly<ProtectionEntry>, decision: ProtectionDecision, now: number, message?: string): ProtectionEntry {
  switch (decision.kind) {
    case 'over':
      return { ...entry, overSince: now };
    case 'under':
      return decision.clearFlag ? { ...entry, overSince: undefined, state: 'on', message: undefined } : { ...entry, overSince: undefined };
    case 'not-honoured':
      return { ...entry, state: 'not-honoured', message };
    default:
      return { ...entry };
  }
}

/** The entry of a phone found not to be a Samsung: nothing is known of its setting (a write made before still counts toward the cooldown: the runner keeps it). */
export function asNotSamsung(message: string): ProtectionEntry {
  return { failures: 0, state: 'not-samsung', message };
}

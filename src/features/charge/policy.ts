// When to pause a phone's charging and when to resume it, decided without I/O: a decision that turns on a verdict not
// given yet says 'needs-verdict', and the runner asks the gate and decides again. A pause never starts without the
// cloud's fresh "not booked", a booking seen during a pause ends it at the next look, and the longest pause always ends
// it, whatever the battery, the cloud or a failed switch say.

import type { ChargeEntry, PauseEnd } from './pauses.js';
import type { BookingVerdict } from '../../booking/gate.js';

export interface ChargeSettings {
  highPercent: number;
  lowPercent: number;
  maxPauseMs: number;
  /** How long after its port is on again a phone may take to come back on adb before its absence means it is gone. */
  waitBackMs: number;
}

export interface ChargeLook {
  /** Monotonic ms. */
  now: number;
  /** The phone's level from a reading of its present connection taken after any pause ended; undefined when none. */
  percent?: number;
  /** The phone is on adb again and has answered since its pause ended. */
  back: boolean;
  /** A switch of its port is in flight (the runner's mark): nothing is decided until it has ended. */
  busy: boolean;
  /** The booking gate's verdict; none yet: a decision that turns on it is 'needs-verdict' (asking may cost a status request). */
  verdict?: BookingVerdict;
}

export type ChargeDecision =
  | {
      kind:
        | 'none'
        /** The decision turns on the booking gate's verdict: ask it, and decide again with it. */
        | 'needs-verdict'
        /** Switch the port off: a pause starts. */
        | 'pause'
        /** Switching the port on failed before: try again. */
        | 'switch-on'
        /** The phone is back (or was waited for long enough): forget the pause. */
        | 'forget';
    }
  /** The pause is over: switch the port on. */
  | { kind: 'resume'; why: PauseEnd };

export function decideCharge(entry: Readonly<ChargeEntry> | undefined, look: ChargeLook, s: ChargeSettings): ChargeDecision {
  if (look.busy) return { kind: 'none' };
  const pause = entry?.pause;
  const due = entry?.retryAt === undefined || look.now >= entry.retryAt;
  if (pause?.ended) {
    if (!pause.ended.switchedOn) return due ? { kind: 'switch-on' } : { kind: 'none' };
    return look.back || look.now >= pause.ended.waitUntil ? { kind: 'forget' } : { kind: 'none' };
  }
  if (pause) {
    // The clock first: nothing the cloud or the battery say can keep the port off longer.
    if (look.now >= pause.until) return { kind: 'resume', why: 'max_time' };
    if (look.percent !== undefined && look.percent <= s.lowPercent) return { kind: 'resume', why: 'low_mark' };
    // A cloud that cannot answer does not end a pause: the longest pause bounds it.
    if (look.verdict === undefined) return { kind: 'needs-verdict' };
    return look.verdict.kind === 'booked' ? { kind: 'resume', why: 'booked' } : { kind: 'none' };
  }
  if (look.percent === undefined || look.percent < s.highPercent || !due) return { kind: 'none' };
  if (look.verdict === undefined) return { kind: 'needs-verdict' };
  return look.verdict.kind === 'free' ? { kind: 'pause' } : { kind: 'none' };
}

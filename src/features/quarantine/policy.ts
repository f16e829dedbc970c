// When a phone is taken out of service and when it comes back, decided
// without I/O (Google's Mobile Harness: 3 failed set-ups and the device is
// FAILED for 20 minutes, failures forgotten after 10). A failure is counted
// only when blamed on the phone itself, its port or cable, its readiness or
// the cloud's refusal of it: a phone is never quarantined for its hub, its
// controller, the host or the adb server, which fail every phone behind them
// and which quarantining one phone cannot help. Taking a phone out turns on
// the booking gate's verdict ('needs-verdict', as the runner decides):
// only a fresh "not booked", unless the phone is already gone from under
// any session; never for a phone whose identity another device claims, and
// within the per-phone budget of the runner's counted starts.
import type { BookingVerdict } from '../../booking/gate.js';
import { PHONE_OWN_LAYERS, type Layer } from '../../devices/phone-state.js';
import { quarantined, type QuarantineEntry } from '../../devices/quarantine.js';
import { refusalOf } from '../readiness-fix/policy.js';

export interface QuarantineSettings {
  /** Failures within windowMs that take a phone out; 0: never. */
  failures: number;
  windowMs: number;
  holdMs: number;
  maxHoldMs: number;
  /** A quarantine this long ago no longer lengthens the next. */
  forgetMs: number;
}

/** At most this many quarantines of one phone start in an hour (the runner's counted starts). */
export const MAX_PER_HOUR = 3;

export type FailureKind = 'inventory' | 'readiness' | 'person' | 'cloud';

/** One failure of a phone: when (wall ms), what, how it reads as evidence, and the layer it is blamed on. */
export interface Failure {
  at: number;
  kind: FailureKind;
  text: string;
  layer: Layer;
}

/** The failures that count now: within the window, blamed on the phone's own layers. */
export function counted(failures: readonly Failure[], now: number, s: Pick<QuarantineSettings, 'windowMs'>) {
  return failures.filter((f) => now - f.at < s.windowMs && f.at <= now && PHONE_OWN_LAYERS.has(f.layer));
}

/** How long a quarantine starting now lasts: twice as long for each quarantine of the phone within the forget horizon, up to the ceiling. */
export function holdFor(starts: readonly number[], now: number, s: Pick<QuarantineSettings, 'holdMs' | 'maxHoldMs' | 'forgetMs'>) {
  const recent = starts.filter((t) => now - t < s.forgetMs && t <= now).length;
  return Math.min(s.maxHoldMs, s.holdMs * 2 ** Math.min(recent, 30));
}

/** The layer a quarantine is blamed on: the one most of its failures are, the latest on a tie. */
export function layerOf(failures: readonly Failure[]) {
  const byLayer = Map.groupBy(failures, (f) => f.layer);
  let best: Layer = failures.at(-1)?.layer ?? 'phone';
  // Only with failures does the loop run, and then best is one of their layers.
  for (const f of [...failures].reverse()) if (byLayer.get(f.layer)!.length > byLayer.get(best)!.length) best = f.layer;
  return best;
}

export interface QuarantineLook {
  /** Wall ms. */
  now: number;
  entry?: QuarantineEntry;
  failures: readonly Failure[];
  /** Another device claims its identity (src/actions/trust.ts): never taken out on evidence that may be another phone's. */
  conflicted: boolean;
  /** Its source lists it in no usable state (gone, offline, off its list): no session can be running on it. */
  gone: boolean;
  /** The runner's counted quarantines of it within the hour (monotonic ms). */
  starts: readonly number[];
  /** It passes a check: its latest inventory (after the quarantine began) answered in full, it is ready, the cloud does not refuse it. */
  passes: boolean;
  /** The booking gate's verdict; none yet: a decision that turns on it is 'needs-verdict'. */
  verdict?: BookingVerdict;
  /**
   * When it became due, while the cloud is being asked whether it is booked: its failures are counted as of then, since
   * the wait is the agent's own (the host's booking questions are rationed) and must not let the evidence age out.
   */
  dueAt?: number;
}

export type QuarantineDecision =
  | { kind: 'none' }
  | { kind: 'needs-verdict' }
  /** Due, and the cloud is being asked. */
  | { kind: 'asking' }
  | { kind: 'quarantine'; until: number; layer: Layer; reason: string; evidence: readonly Failure[] }
  /** Due, but the cloud says booked or cannot say: not taken out, said once (the runner's hold). */
  | { kind: 'held'; reason: string }
  /** Due, but its identity does not hold: refused, said once (the runner's refusal). */
  | { kind: 'refused'; reason: string }
  | { kind: 'release' };

export function decideQuarantine(look: QuarantineLook, s: QuarantineSettings): QuarantineDecision {
  const { entry, now } = look;
  if (quarantined(entry)) return now >= entry.until && look.passes ? { kind: 'release' } : { kind: 'none' };
  if (s.failures <= 0) return { kind: 'none' };
  // Failures before the last quarantine ended were its cause, or an operator put it back over them.
  const since = entry?.released?.at ?? -Infinity;
  const failures = counted(look.failures, look.dueAt ?? now, s).filter((f) => f.at > since);
  if (failures.length < s.failures) return { kind: 'none' };
  if (look.conflicted) return { kind: 'refused', reason: 'its identity is claimed by another device too' };
  if (look.starts.length >= MAX_PER_HOUR) return { kind: 'none' };
  const evidence = failures.slice(-s.failures);
  const minutes = Math.round(s.windowMs / 60_000);
  const due = {
    kind: 'quarantine' as const,
    until: now + holdFor(entry?.starts ?? [], now, s),
    layer: layerOf(evidence),
    reason: `${failures.length} failures in ${minutes} min`,
    evidence,
  };
  // A phone already gone from under any session is taken out without asking.
  if (look.gone) return due;
  if (look.verdict === undefined) return { kind: 'needs-verdict' };
  if (look.verdict.kind === 'free') return due;
  const reason = refusalOf(look.verdict);
  // Being asked: it stays as it is until the answer, a hold said before included.
  return reason === undefined ? { kind: 'asking' } : { kind: 'held', reason };
}

// Whose verdicts the timeline keeps (timeline.ts), declared in one place and in one order: the order their words join a
// phone's message, which is the only meaning an order has. A feature writes its own key's verdicts; another feature or
// a view that cares reads them here by the key, never a field of the report.
import type { VerdictKey } from './timeline.js';

function key<D = never>(name: string, order: number): VerdictKey<D> {
  return { name, order };
}

/** Readiness for automation against the lab's baseline: the checks failed, and those not read. */
export interface ReadinessDetail {
  ready: boolean;
  failed: ReadonlyArray<{ readonly check: { readonly id: string } }>;
  unread: readonly string[];
}

/** Recovery can do no more and asks for a person, saying why. */
export const PERSON = key('recovery', 5);
export const READINESS = key<ReadinessDetail>('readiness', 10);
/** An iPhone from iOS 17 without a live tunnel on this host, or whose iOS the host's tools do not support: its TUNNEL cell. */
export const TUNNEL = key<{ cell: string; state: string }>('ios-developer', 20);
/** The health rules on its last reading: the problems that hold (a hot battery, a full storage). */
export const HEALTH = key<{ problems: readonly string[] }>('health', 30);
/** Held out of service for failing again and again. */
export const QUARANTINED = key<{ until: number; since: number }>('quarantine', 40);

// Drift: a readiness value that changed on a phone since the agent last read
// it (someone turned stay awake off, an update turned verify apps over USB
// back on). Pure: what the feature logs, once per change, never per report.
import { CHECKS, meets } from './checks.js';

/** The values of the baseline's checks the phone answered, by check name. */
export type Values = Readonly<Record<string, string>>;

export interface Flip {
  check: string;
  what: string;
  from: string;
  to: string;
  /** Whether the new value meets the baseline. */
  passes: boolean;
}

/** The checks whose value changed between two readings; a check unread in either is no change. */
export function flips(before: Values, now: Values, baseline: ReadonlyMap<string, string | undefined>): Flip[] {
  const out: Flip[] = [];
  for (const check of CHECKS) {
    const from = before[check.id];
    const to = now[check.id];
    if (from === undefined || to === undefined || from === to || !baseline.has(check.id)) continue;
    out.push({ check: check.id, what: check.what, from, to, passes: meets(check, to, baseline.get(check.id) ?? check.expect) });
  }
  return out;
}

/** The line of one flip. */
export function flipLine(flip: Flip): string {
  return `readiness changed: ${flip.what} went from ${flip.from} to ${flip.to}; it ${flip.passes ? 'meets' : 'fails'} the baseline now`;
}

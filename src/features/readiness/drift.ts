// Drift: what changed on a phone since last read, as events logged once each: a readiness value that flipped, the
// first not-ready moment of each stretch, a build that changed (an OTA). Pure.
import { buildOf, type Build } from './build.js';
import { CHECKS } from './checks.js';
import { meetsValue } from '../../devices/readiness-grammar.js';
import type { Verdict } from './verdict.js';

/** The values of the baseline's checks the phone answered, by check name. */
export type Values = Readonly<Record<string, string>>;

interface Flip {
  check: string;
  what: string;
  from: string;
  to: string;
  /** Whether the new value meets the baseline. */
  passes: boolean;
}

/** The checks whose value changed between two readings; a check unread in either is no change. */
export function flips(before: Values, now: Values, baseline: ReadonlyMap<string, string | undefined>) {
  const out: Flip[] = [];
  for (const check of CHECKS) {
    const from = before[check.id];
    const to = now[check.id];
    if (from === undefined || to === undefined || from === to || !baseline.has(check.id)) continue;
    out.push({ check: check.id, what: check.what, from, to, passes: meetsValue(check.kind, to, baseline.get(check.id) ?? check.expect) });
  }
  return out;
}

/** The line of one flip. */
export function flipLine(flip: Flip) {
  return `readiness changed: ${flip.what} went from ${flip.from} to ${flip.to}; it ${flip.passes ? 'meets' : 'fails'} the baseline now`;
}

/** What the agent last saw of a phone, kept past its connections. */
export interface Seen {
  values: Values;
  /** Its last verdict was not ready: a not-ready moment is said once, until it is ready again. */
  notReady: boolean;
  /** Its last build fingerprint. */
  fingerprint?: string;
}

/** One inventory's word: the values and verdict of its readiness sections (none when unread), its build fingerprint. */
export interface Observation {
  values: Values;
  verdict?: Verdict;
  fingerprint?: string;
}

export type DriftEvent = { kind: 'build'; from: Build; to: Build } | { kind: 'value'; flip: Flip } | { kind: 'not_ready'; verdict: Verdict };

/** What changed between what was seen and this observation; a phone seen first has no drift but may be not ready at once. */
export function drift(before: Seen | undefined, now: Observation, baseline: ReadonlyMap<string, string | undefined>) {
  const events: DriftEvent[] = [];
  const from = buildOf(before?.fingerprint);
  const to = buildOf(now.fingerprint);
  if (from && to && from.fingerprint !== to.fingerprint) events.push({ kind: 'build', from, to });
  if (before) for (const flip of flips(before.values, now.values, baseline)) events.push({ kind: 'value', flip });
  // Unread is not not-ready: a stretch of not ready ends only at a verdict that fails nothing.
  const notReady = now.verdict ? now.verdict.failed.length > 0 : (before?.notReady ?? false);
  if (now.verdict && notReady && !before?.notReady) events.push({ kind: 'not_ready', verdict: now.verdict });
  return {
    seen: { values: { ...before?.values, ...now.values }, notReady, fingerprint: to?.fingerprint ?? before?.fingerprint },
    events,
  };
}

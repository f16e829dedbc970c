// A phone's readiness verdict against the lab's baseline: ready (every check of its read and met), not ready (a check
// read and failed, each named with its value and what to do), or unread (none failed, some not read). Pure.
import { absentRow, appliesTo, CHECKS, valueOf, type Check, type Reading } from './checks.js';
import { expectedText, meetsValue, valueNote } from '../../devices/readiness-grammar.js';
import type { ReadinessDetail } from '../../devices/verdicts.js';

export interface Failure {
  check: Check;
  value: string;
  expected: string;
  /** The phone has no row for the setting: its value is the framework's default (checks.ts, absentRow). */
  noRow?: true;
}

export interface Verdict {
  /** Every check of the baseline that is the phone's was read and met (and there was one): only then. */
  ready: boolean;
  failed: Failure[];
  /** The checks of the baseline the phone's reading did not answer (a failed list, a key it does not print, garbage, a domain lockdown refused): neither passed nor failed, and the phone not ready for it either. */
  unread: string[];
}

/** Where a verdict counts: ready, not ready (a check failed), unread (none failed, one or more unread); undefined when no check of the baseline is the phone's. */
export function stateOf(verdict: ReadinessDetail) {
  if (verdict.failed.length > 0) return 'not_ready';
  if (verdict.unread.length > 0) return 'unread';
  return verdict.ready ? 'ready' : undefined;
}

/** The values of the baseline's checks (lab value or undefined for the default) that the reading answers, by name; `maker` for vendor checks. */
export function valuesOf(reading: Reading, baseline: ReadonlyMap<string, string | undefined>, maker: string | undefined) {
  const values: Record<string, string> = {};
  for (const check of CHECKS) {
    const value = baseline.has(check.id) ? valueOf(check, reading, maker) : undefined;
    if (value !== undefined) values[check.id] = value;
  }
  return values;
}

export function judge(reading: Reading, baseline: ReadonlyMap<string, string | undefined>, maker: string | undefined): Verdict {
  const failed: Failure[] = [];
  const unread: string[] = [];
  let read = 0;
  for (const check of CHECKS) {
    if (!baseline.has(check.id) || !appliesTo(check, reading, maker)) continue;
    const expected = baseline.get(check.id) ?? check.expect;
    const value = valueOf(check, reading, maker);
    if (value === undefined) {
      unread.push(check.id);
      continue;
    }
    read++;
    if (!meetsValue(check.kind, value, expected)) failed.push({ check, value, expected, ...(absentRow(check, reading) && { noRow: true as const }) });
  }
  return { ready: failed.length === 0 && unread.length === 0 && read > 0, failed, unread };
}

/** What is said of a phone that is not ready; in the device's message, a check whose fix the source's message gives points there. */
export function verdictMessage(verdict: Verdict, inMessage = false) {
  if (verdict.failed.length === 0) return undefined;
  const items = verdict.failed.map(
    (f) => `${failureText(f)}: ${inMessage && f.check.fixInSourceMessage ? 'what to do is said at the start of this message' : f.check.fix}`,
  );
  return `not ready for automation (${verdict.failed.length} of the lab's checks failed): ${items.join('; ')}`;
}

/** "stay awake while charging is 1 (stay_on_while_plugged_in: AC only, asleep on USB), expected on over USB". */
export function failureText({ check, value, expected, noRow }: Failure) {
  return `${check.what} is ${shown(check, value, true, noRow)}, expected ${shown(check, expected, false)}`;
}

function shown(check: Check, value: string, named = true, noRow = false) {
  const source = check.source;
  if (source.kind === 'keyguard') return value === 'true' ? 'set' : 'none';
  if (source.kind === 'fact') {
    const word = value === 'true' ? 'on' : value === 'false' ? 'off' : value;
    return named ? `${word} (${source.key})` : word;
  }
  if (!named) return expectedText(check.kind, value);
  const note = [noRow ? "no row, the framework's default" : undefined, valueNote(check.kind, value)].filter((n) => n !== undefined).join('; ');
  return `${value} (${source.kind === 'setting' ? source.key : source.name}${note === '' ? '' : `: ${note}`})`;
}

/** At most this many checks named in a cell, the rest counted: a phone that answered none stays one short cell. */
const CELL_CHECKS = 3;

function named(ids: readonly string[]) {
  return ids.length <= CELL_CHECKS ? ids.join(', ') : `${ids.slice(0, CELL_CHECKS).join(', ')} and ${ids.length - CELL_CHECKS} more`;
}

/**
 * `list`'s cell: "ready", "not ready: stayAwake, verifyAdbInstalls", or "unread: developerOptions" (past three checks,
 * "… and N more": doctor and `list --json`'s message name them all); undefined when no check is the phone's.
 */
export function verdictCell(verdict: ReadinessDetail) {
  const state = stateOf(verdict);
  if (state === 'not_ready') return `not ready: ${named(verdict.failed.map((f) => f.check.id))}`;
  return state === 'unread' ? `unread: ${named(verdict.unread)}` : state;
}

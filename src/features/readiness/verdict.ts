// A phone's readiness verdict against the lab's baseline: ready, or not ready
// with each failed check named, its value, and what to do. Pure.
import { appliesTo, CHECKS, meets, valueOf, type Check, type Reading } from './checks.js';

export interface Failure {
  check: Check;
  value: string;
  expected: string;
}

export interface Verdict {
  ready: boolean;
  failed: Failure[];
  /** The checks of the baseline the phone's reading did not answer (an old OS, a failed list, a domain lockdown refused): neither passed nor failed. */
  unread: string[];
}

/**
 * `baseline`: each check that matters (readiness.checks), with the lab's own
 * expected value or undefined for the check's default; `maker` is the phone's
 * brand, for the vendor checks.
 */
/** The values of the baseline's checks that the reading answers, by check name. */
export function valuesOf(reading: Reading, baseline: ReadonlyMap<string, string | undefined>, maker: string | undefined): Record<string, string> {
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
  for (const check of CHECKS) {
    if (!baseline.has(check.id) || !appliesTo(check, reading)) continue;
    const expected = baseline.get(check.id) ?? check.expect;
    const value = valueOf(check, reading, maker);
    if (value === undefined) {
      if (check.source.kind !== 'prop') unread.push(check.id);
      continue;
    }
    if (!meets(check, value, expected)) failed.push({ check, value, expected });
  }
  return { ready: failed.length === 0, failed, unread };
}

/**
 * What is said of a phone that is not ready, each failed check with what to
 * do; undefined when it is ready. In the device's message (`inMessage`), a
 * check whose fix the source's own message already gives points there
 * rather than say it twice.
 */
export function verdictMessage(verdict: Verdict, inMessage = false): string | undefined {
  if (verdict.ready) return undefined;
  const items = verdict.failed.map(
    (f) => `${failureText(f)}: ${inMessage && f.check.fixInSourceMessage ? 'what to do is said at the start of this message' : f.check.fix}`,
  );
  return `not ready for automation (${verdict.failed.length} of the lab's checks failed): ${items.join('; ')}`;
}

/** "stay awake while charging is 0 (stay_on_while_plugged_in), expected on". */
export function failureText({ check, value, expected }: Failure): string {
  return `${check.what} is ${shown(check, value)}, expected ${shown(check, expected, false)}`;
}

function shown(check: Check, value: string, named = true): string {
  const source = check.source;
  if (source.kind === 'keyguard') return value === 'true' ? 'set' : 'none';
  if (source.kind === 'fact') {
    const word = value === 'true' ? 'on' : value === 'false' ? 'off' : value;
    return named ? `${word} (${source.key})` : word;
  }
  return named ? `${value} (${source.kind === 'setting' ? source.key : source.name})` : value;
}

/**
 * `list`'s cell: "ready", or "not ready: stayAwake, verifyAdbInstalls" (the
 * failed checks by their names in readiness.checks); undefined when the
 * reading answered none of the baseline's checks (`answered`): nothing was judged.
 */
export function verdictCell(verdict: Verdict, answered: number): string | undefined {
  if (!verdict.ready) return `not ready: ${verdict.failed.map((f) => f.check.id).join(', ')}`;
  return answered > 0 ? 'ready' : undefined;
}

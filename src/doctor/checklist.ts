import { maskString } from '../log/redact.js';
import { noPaint, type Paint } from '../util/paint.js';
import { terminalText } from '../report/clean-strings.js';

// The item is the platform's as much as the doctor's (src/platforms/doctor.ts): a platform's doctor words fill it.
import type { CheckItem, CheckStatus } from '../platforms/doctor.js';

export type { CheckItem, CheckResult, CheckStatus } from '../platforms/doctor.js';
export { named } from '../platforms/doctor.js';

/** What a failed phone item does to the doctor: warn (the default), or fail (`doctor --phones fail`). */
export const PHONE_LEVELS = ['warn', 'fail'] as const;
export type PhoneLevel = (typeof PHONE_LEVELS)[number];

/**
 * The items as judged at a phone level. At 'warn' a phone's failure is shown and counted as a warning: a rollout's
 * post-check asks whether the host can report, and one phone waiting for "Allow USB debugging" does not stop it. At
 * 'fail' every item keeps its own status.
 */
export function atPhoneLevel(items: readonly CheckItem[], level: PhoneLevel): CheckItem[] {
  if (level === 'fail') return [...items];
  return items.map((item) => (item.phone !== undefined && item.status === 'fail' ? { ...item, status: 'warn' } : item));
}

const RANK = { fail: 0, warn: 1, unread: 2, ok: 3 };
const once = (texts: unknown[]) => [...new Set(texts.filter((t): t is string => typeof t === 'string' && t !== ''))];

/**
 * One verdict per check (its id and phone), what is wrong first: failures, warnings, what went unread, then what is
 * fine, each in the order the checks came. A check is as bad as its worst item, and says only what is not ok then (no
 * "valid" beside a failure of it). An unread verdict's finding is why; the checklist words it.
 */
export function verdicts(items: readonly CheckItem[]): CheckItem[] {
  const checks = [...Map.groupBy(items, (i) => JSON.stringify([i.id, i.phone])).values()].map((group): CheckItem => {
    const status = group.map((i) => i.status).sort((a, b) => RANK[a] - RANK[b])[0]!;
    const shown = status === 'ok' ? group : group.filter((i) => i.status !== 'ok');
    const advice = once(shown.map((i) => i.advice)).join('; ');
    const config = shown.some((i) => i.config);
    return { ...group[0]!, status, finding: once(shown.map((i) => i.finding)).join('; '), advice: advice || undefined, config: config || undefined };
  });
  return checks.sort((a, b) => RANK[a.status] - RANK[b.status]);
}

/** "device R58M: wear unread: why", "wear, readiness unread on 3 phones (A, B, C): why": each check named by its id's last word. */
function unreadText(checks: readonly CheckItem[]) {
  const parts = once(checks.map((c) => c.id.slice(c.id.lastIndexOf('.') + 1))).join(', ');
  const phones = [...new Set(checks.map((c) => c.phone))];
  const why = checks[0]!.finding;
  if (phones.length === 1) return `${phones[0] === undefined ? '' : `device ${phones[0]}: `}${parts} unread: ${why}`;
  return `${parts} unread on ${phones.length} phones (${phones.slice(0, 8).join(', ')}${phones.length > 8 ? ', ...' : ''}): ${why}`;
}

/** Each status's label, in its colour (what went unread has none). */
const LABELS: Record<CheckStatus, (paint: Paint) => string> = {
  ok: (paint) => paint.ok('[ OK ]'),
  warn: (paint) => paint.warn('[WARN]'),
  fail: (paint) => paint.bad('[FAIL]'),
  unread: () => '[ -- ]',
};
const ADVICE_INDENT = '       -> ';

/**
 * The checklist as printed from the verdicts: one line per check that failed or warns, with its advice under it (under
 * the last of a run that shares it); a phone's checks unread for one reason on one line, and phones alike on one line;
 * what is fine named on one line, the phones whose own line passed counted (their other lines say what is not); the
 * counts. Every line is secret-masked: the findings quote errors and settings, and stdout is not the logger.
 */
export function formatChecklist(checks: readonly CheckItem[], paint = noPaint) {
  const label = (status: CheckStatus) => LABELS[status](paint);
  const lines: string[] = [];
  const wrong = checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  wrong.forEach((c, i) => {
    lines.push(`${label(c.status)} ${oneLine(c.finding)}`);
    if (c.advice && c.advice !== wrong[i + 1]?.advice) lines.push(ADVICE_INDENT + oneLine(c.advice));
  });
  const unread = Map.groupBy(
    checks.filter((c) => c.status === 'unread'),
    (c) => JSON.stringify([c.phone ?? c.id, c.finding]),
  );
  const alike = Map.groupBy(unread.values(), (g) => JSON.stringify([g.map((c) => c.id), g[0]!.phone === undefined && g[0]!.id, g[0]!.finding]));
  for (const groups of alike.values()) lines.push(`${label('unread')} ${oneLine(unreadText(groups.flat()))}`);
  const phones = checks.filter((c) => c.status === 'ok' && c.id === 'phone').length;
  const fine = once([
    ...checks.filter((c) => c.status === 'ok' && c.phone === undefined).map((c) => c.id.replace(/[.-]/g, ' ')),
    phones ? `${phones} phone${phones === 1 ? '' : 's'}` : undefined,
  ]);
  if (fine.length) lines.push(`${label('ok')} ${fine.join(', ')}`);
  const n = (status: CheckStatus) => checks.filter((c) => c.status === status).length;
  const said = once([
    n('fail') && `${n('fail')} failed`,
    n('warn') && `${n('warn')} warning${n('warn') === 1 ? '' : 's'}`,
    n('unread') && `${n('unread')} unread`,
  ]);
  lines.push(said.length ? `${said.join(', ')} of ${checks.length} checks.` : `All ${checks.length} checks passed.`);
  return lines.map(maskString).join('\n') + '\n';
}

/**
 * The checklist for scripts (`doctor --json`): each check's id (and phone), status, finding and advice (advice only
 * where it is not ok, as printed), whether it is the configuration's, the counts and the exit code the doctor returns.
 * Masked as the text is; JSON escapes what a terminal would run.
 */
export function checklistJson(checks: readonly CheckItem[], phones?: readonly object[]) {
  const mask = (text: string | undefined) => text && maskString(text);
  const list = checks.map((c) => ({
    id: c.id,
    phone: mask(c.phone),
    status: c.status,
    finding: mask(c.status === 'unread' ? unreadText([c]) : c.finding),
    advice: c.status === 'ok' ? undefined : mask(c.advice),
    config: c.config,
  }));
  const count = (status: CheckStatus) => checks.filter((c) => c.status === status).length;
  const json = JSON.stringify(
    { exitCode: exitCodeOf(checks), failed: count('fail'), warnings: count('warn'), unread: count('unread'), checks: list, ...(phones && { phones }) },
    null,
    2,
  );
  return json + '\n';
}

/** 2 when the configuration failed (as for every command), 1 when anything else failed, else 0: warnings and unread checks do not fail the doctor. */
export function exitCodeOf(items: readonly CheckItem[]) {
  const failed = items.filter((item) => item.status === 'fail');
  if (failed.some((item) => item.config)) return 2;
  return failed.length ? 1 : 0;
}

// A multi-line error message must not break the one-line-per-item layout, and a control character from a device or the
// cloud must not reach the terminal as a command, nor a bidi override reorder the line (each is shown as U+FFFD).
function oneLine(text: string) {
  return terminalText(text.replace(/\s+/g, ' ').trim());
}

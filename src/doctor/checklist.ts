import { maskString } from '../log/redact.js';
import { noPaint, type Paint } from '../util/paint.js';
import { terminalText } from '../report/clean-strings.js';

// The item is the platform's as much as the doctor's (src/platforms/doctor.ts): a platform's doctor words fill it.
import type { CheckItem, CheckStatus } from '../platforms/doctor.js';

export type { CheckItem, CheckStatus } from '../platforms/doctor.js';

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
  return items.map((item) => (item.phone && item.status === 'fail' ? { ...item, status: 'warn' } : item));
}

const LABELS: Record<CheckStatus, string> = { ok: '[ OK ]', warn: '[WARN]', fail: '[FAIL]' };
const PAINT: Record<CheckStatus, keyof Paint> = { ok: 'ok', warn: 'warn', fail: 'bad' };
const ADVICE_INDENT = '       -> ';

/**
 * The checklist as printed: one line per item, advice indented under items that are not ok, and a closing summary.
 * Every line is secret-masked: the findings quote errors and settings, and stdout is not the logger.
 */
export function formatChecklist(items: readonly CheckItem[], paint: Paint = noPaint): string {
  const lines: string[] = [];
  for (const item of items) {
    lines.push(`${paint[PAINT[item.status]](LABELS[item.status])} ${oneLine(item.finding)}`);
    const advice = item.status === 'ok' ? '' : oneLine(item.advice ?? '');
    if (advice) lines.push(ADVICE_INDENT + advice);
  }
  lines.push(summary(items));
  return lines.map(maskString).join('\n') + '\n';
}

/**
 * The checklist for scripts (`doctor --json`): each item's status, finding and advice (advice only where the item is
 * not ok, as printed), whether it is a phone's or the configuration's, the counts and the exit code the doctor returns.
 * Masked as the text is; JSON escapes what a terminal would run.
 */
export function checklistJson(items: readonly CheckItem[]): string {
  const checks = items.map((item) => ({
    status: item.status,
    finding: maskString(item.finding),
    ...(item.status !== 'ok' && item.advice ? { advice: maskString(item.advice) } : {}),
    ...(item.phone ? { phone: true } : {}),
    ...(item.config ? { config: true } : {}),
  }));
  const count = (status: CheckStatus) => items.filter((item) => item.status === status).length;
  return JSON.stringify({ exitCode: exitCodeOf(items), failed: count('fail'), warnings: count('warn'), checks }, null, 2) + '\n';
}

/** 2 when the configuration failed (as for every command), 1 when anything else failed, else 0: warnings alone do not fail the doctor. */
export function exitCodeOf(items: readonly CheckItem[]): number {
  const failed = items.filter((item) => item.status === 'fail');
  if (failed.some((item) => item.config)) return 2;
  return failed.length ? 1 : 0;
}

function summary(items: readonly CheckItem[]): string {
  const failed = items.filter((item) => item.status === 'fail').length;
  const warned = items.filter((item) => item.status === 'warn').length;
  if (failed === 0 && warned === 0) return `All ${items.length} checks passed.`;
  const parts: string[] = [];
  if (failed) parts.push(`${failed} failed`);
  if (warned) parts.push(`${warned} ${warned === 1 ? 'warning' : 'warnings'}`);
  return `${parts.join(', ')} of ${items.length} checks.`;
}

// A multi-line error message must not break the one-line-per-item layout, and a control character from a device or the
// cloud must not reach the terminal as a command, nor a bidi override reorder the line (each is shown as U+FFFD).
function oneLine(text: string): string {
  return terminalText(text.replace(/\s+/g, ' ').trim());
}

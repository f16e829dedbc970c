// Readiness's lines in `doctor`: each phone judged against the baseline from the readings the inventory takes, read in
// the doctor's one shell per device, and an iPhone from its lockdown facts. Pure.
import type { CheckItem } from '../../platforms/doctor.js';
import type { DoctorPhone, FeatureDoctor } from '../context.js';
import { CHECKS, type Reading } from './checks.js';
import { failureText, judge, stateOf, valuesOf } from './verdict.js';

/** The doctor's lines of readiness against this baseline; none without one. */
export function readinessDoctor(baseline: ReadonlyMap<string, string | undefined>): FeatureDoctor {
  if (baseline.size === 0) return {};
  return {
    reads: ['readiness'],
    phones: (phones) => readinessItems(phones, baseline),
    facts: (name, facts, brand) => verdictItem(name, { facts }, baseline, brand),
  };
}

/** A phone's line when it fails the baseline, with what to do about each check, or has checks unread (never called ready); 'ready' when it passes. */
function verdictItem(name: string, reading: Reading, baseline: ReadonlyMap<string, string | undefined>, brand: string | undefined): CheckItem | 'ready' {
  const verdict = judge(reading, baseline, brand);
  const state = stateOf(verdict);
  if (state === 'ready') return 'ready';
  if (state !== 'not_ready')
    return { status: 'ok', phone: true, finding: `${name}: readiness unread, never called ready: ${verdict.unread.join(', ')} not read` };
  return {
    status: 'warn',
    phone: true,
    finding: `${name}: not ready for automation: ${verdict.failed.map(failureText).join(', ')}`,
    advice: verdict.failed.map((f) => `${f.check.what}: ${f.check.fix}`).join('; '),
  };
}

/**
 * One warning per phone that fails the baseline, each failed check with its value and fix; then one line counting the
 * phones ready. A phone with checks unread and none failed is counted apart, never ready. No line when none was judged.
 */
export function readinessItems(phones: readonly DoctorPhone[], baseline: ReadonlyMap<string, string | undefined>): CheckItem[] {
  if (baseline.size === 0) return [];
  const phoneItems: CheckItem[] = [];
  let ready = 0;
  for (const phone of phones) {
    if (!phone.readiness) continue;
    const { reading, brand } = phone.readiness;
    const none = !reading || Object.keys(valuesOf(reading, baseline, brand)).length === 0;
    const item: CheckItem | 'ready' = none
      ? {
          status: 'ok',
          phone: true,
          finding: `device ${phone.serial}: readiness unread, never called ready: its readiness sections answered none of the checks`,
        }
      : verdictItem(`device ${phone.serial}`, reading, baseline, brand);
    if (item === 'ready') ready++;
    else phoneItems.push(item);
  }
  const unreadPhones = phoneItems.filter((i) => i.status === 'ok').length;
  const judged = ready + phoneItems.length;
  if (judged === 0) return [];
  const apart = unreadPhones ? `; ${unreadPhones} with checks unread, counted apart` : '';
  // The checks a shell reading answers: those of the baseline read from a source's published facts are not for these phones.
  const shellChecks = [...baseline.keys()].filter((id) => CHECKS.find((c) => c.id === id)?.source.kind !== 'fact').length;
  const summary: CheckItem = {
    status: 'ok',
    finding: `readiness: ${ready} of ${judged} phones ready for automation against the lab's baseline (readiness.checks: ${shellChecks} checks)${apart}`,
  };
  return [summary, ...phoneItems];
}

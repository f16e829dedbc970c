// The doctor's readiness lines: each phone judged against the lab's baseline
// (readiness.checks) from the same readings the inventory takes (its
// readiness sections), read in the doctor's one shell per device with the
// platform's command (ServiceDoctor.readinessCommand). Pure: the answers and
// the platform's parser in, checklist items out.
import { CHECKS } from '../features/readiness/checks.js';
import { failureText, judge, stateOf, valuesOf } from '../features/readiness/verdict.js';
import type { ReadinessAnswer, ServiceDoctor } from '../platforms/doctor.js';
import type { CheckItem } from './checklist.js';

export interface PhoneReadiness {
  serial: string;
  readiness?: ReadinessAnswer;
}

/**
 * One warning per phone that fails the baseline, naming each failed check
 * and its value, with what to do about each; then one line counting the
 * phones judged ready. A phone with a check of the baseline unread (a shell
 * cut short, a phone without `settings list`, a key it does not print, a
 * value the framework would not take) and none failed is counted apart,
 * never called ready, with the checks unread. No line at all when no phone
 * was judged.
 */
export function readinessItems(
  phones: readonly PhoneReadiness[],
  baseline: ReadonlyMap<string, string | undefined>,
  parse: ServiceDoctor['parseReadiness'],
): CheckItem[] {
  if (baseline.size === 0) return [];
  const phoneItems: CheckItem[] = [];
  let ready = 0;
  for (const phone of phones) {
    if (!phone.readiness) continue;
    const reading = parse(phone.readiness.text);
    const verdict = reading && judge(reading, baseline, phone.readiness.brand);
    const state = verdict && stateOf(verdict);
    if (state === 'ready') {
      ready++;
      continue;
    }
    if (!verdict || state !== 'not_ready') {
      const none = !reading || Object.keys(valuesOf(reading, baseline, phone.readiness.brand)).length === 0;
      phoneItems.push({
        status: 'ok',
        phone: true,
        finding: `device ${phone.serial}: readiness unread, never called ready: ${none ? 'its readiness sections answered none of the checks' : `${verdict!.unread.join(', ')} not read`}`,
      });
      continue;
    }
    phoneItems.push({
      status: 'warn',
      phone: true,
      finding: `device ${phone.serial}: not ready for automation: ${verdict.failed.map(failureText).join(', ')}`,
      advice: verdict.failed.map((f) => `${f.check.what}: ${f.check.fix}`).join('; '),
    });
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

// The doctor's readiness lines: each phone judged against the lab's baseline
// (readiness.checks) from the same readings the inventory takes (its
// readiness sections), read in the doctor's one shell per device. Pure but
// for the command text: the output in, checklist items out.
import { CHECKS } from '../features/readiness/checks.js';
import { failureText, judge, valuesOf } from '../features/readiness/verdict.js';
import { parseReadiness } from '../platforms/android/inventory/parsers/readiness.js';
import { READINESS_PROBES } from '../platforms/android/inventory/probes/readiness.js';
import { buildInventoryScript, marker, splitSections } from '../platforms/android/inventory/script.js';
import type { CheckItem } from './checklist.js';

/** The readiness sections as the inventory runs them, then the brand the vendor checks need. */
export const READINESS_COMMAND = `${buildInventoryScript({ tiers: [], sections: READINESS_PROBES.map((p) => p.section) })}echo "brand:$(getprop ro.product.brand)"\n`;
const FIRST = marker(READINESS_PROBES[0].section);

/** What a phone's readiness part of the output says: the sections' text, and its brand. */
export interface ReadinessAnswer {
  text: string;
  brand?: string;
}

/** Splits the doctor's output where the readiness part starts: what comes before, and the readiness answer (undefined when it never started). */
export function splitReadiness(output: string): { head: string; readiness?: ReadinessAnswer } {
  const at = output.indexOf(FIRST);
  if (at < 0) return { head: output };
  const tail = output.slice(at);
  const sections = splitSections(tail).sections;
  const brand = /^brand:(.*)$/m.exec(tail)?.[1]?.trim();
  const text = READINESS_PROBES.flatMap((p) => sections.get(p.section) ?? []).join('\n');
  return { head: output.slice(0, at), readiness: { text, ...(brand ? { brand } : {}) } };
}

export interface PhoneReadiness {
  serial: string;
  readiness?: ReadinessAnswer;
}

/**
 * One warning per phone that fails the baseline, naming each failed check
 * and its value, with what to do about each; then one line counting the
 * phones judged ready. A phone whose reading answered none of the checks
 * (a shell cut short, an Android without `settings list`) is counted apart,
 * never called ready. No line at all when no phone was judged.
 */
export function readinessItems(phones: readonly PhoneReadiness[], baseline: ReadonlyMap<string, string | undefined>): CheckItem[] {
  if (baseline.size === 0) return [];
  const phoneItems: CheckItem[] = [];
  let ready = 0;
  let unread = 0;
  for (const phone of phones) {
    const reading = phone.readiness && parseReadiness(phone.readiness.text);
    if (!phone.readiness) continue;
    const answered = reading ? Object.keys(valuesOf(reading, baseline, phone.readiness.brand)).length : 0;
    if (!reading || answered === 0) {
      unread++;
      continue;
    }
    const verdict = judge(reading, baseline, phone.readiness.brand);
    if (verdict.ready) {
      ready++;
      continue;
    }
    phoneItems.push({
      status: 'warn',
      phone: true,
      finding: `device ${phone.serial}: not ready for automation: ${verdict.failed.map(failureText).join(', ')}`,
      advice: verdict.failed.map((f) => `${f.check.what}: ${f.check.fix}`).join('; '),
    });
  }
  const judged = ready + phoneItems.length;
  if (judged === 0) return [];
  const apart = unread ? `; ${unread} answered none of the checks` : '';
  // The checks a shell reading answers: those of the baseline read from a source's published facts are not for these phones.
  const shellChecks = [...baseline.keys()].filter((id) => CHECKS.find((c) => c.id === id)?.source.kind !== 'fact').length;
  const summary: CheckItem = {
    status: 'ok',
    finding: `readiness: ${ready} of ${judged} phones ready for automation against the lab's baseline (readiness.checks: ${shellChecks} checks)${apart}`,
  };
  return [summary, ...phoneItems];
}

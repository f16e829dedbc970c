// Readiness's lines in `doctor`: each phone judged against the baseline from the readings the inventory takes, read in
// the doctor's one shell per device, and an iPhone from its lockdown facts. Pure.
import type { CheckItem } from '../../platforms/doctor.js';
import type { DoctorPhone, FeatureDoctor } from '../context.js';
import type { Reading } from './checks.js';
import { failureText, judge, stateOf, valuesOf } from './verdict.js';

/** The doctor's lines of readiness against this baseline; none without one. */
export function readinessDoctor(baseline: ReadonlyMap<string, string | undefined>): FeatureDoctor {
  if (baseline.size === 0) return {};
  return {
    reads: ['readiness'],
    phones: (phones) => readinessItems(phones, baseline),
    facts: (udid, facts, brand) => verdictItem(udid, `iPhone ${udid}`, { facts }, baseline, brand),
  };
}

/** A phone's verdict: ready, or failing the baseline with what to do about each check, or with checks unread (never called ready). */
function verdictItem(phone: string, name: string, reading: Reading, baseline: ReadonlyMap<string, string | undefined>, brand: string | undefined): CheckItem {
  const verdict = judge(reading, baseline, brand);
  const state = stateOf(verdict);
  const id = 'phone.readiness';
  if (state === 'ready') return { id, phone, status: 'ok', finding: `${name}: ready for automation against the lab's baseline (readiness.checks)` };
  if (state !== 'not_ready') return { id, phone, status: 'unread', finding: `${verdict.unread.join(', ')} not read, never called ready` };
  return {
    id,
    phone,
    status: 'warn',
    finding: `${name}: not ready for automation: ${verdict.failed.map(failureText).join(', ')}`,
    advice: verdict.failed.map((f) => `${f.check.what}: ${f.check.fix}`).join('; '),
  };
}

/** Each phone's verdict against the baseline; unread, and why, for one whose shell told no readiness part (not ready, cut short) or none of the checks. */
export function readinessItems(phones: readonly DoctorPhone[], baseline: ReadonlyMap<string, string | undefined>): CheckItem[] {
  if (baseline.size === 0) return [];
  return phones.map((phone): CheckItem => {
    const unread = (why: string): CheckItem => ({ id: 'phone.readiness', phone: phone.serial, status: 'unread', finding: phone.unread ?? why });
    if (!phone.readiness) return unread('its shell printed no readiness part');
    const { reading, brand } = phone.readiness;
    if (!reading || Object.keys(valuesOf(reading, baseline, brand)).length === 0) return unread('its readiness sections answered none of the checks');
    return verdictItem(phone.serial, `device ${phone.serial}`, reading, baseline, brand);
  });
}

// Readiness's fix-it action (readiness.fix), decided without I/O: which of the settings in FIXABLE differ from the
// baseline on one phone, and whether they may be written now. What a person must decide (screen lock, developer
// options, USB debugging, accounts) is never in FIXABLE. Only a fresh "not booked" writes ('needs-verdict' first), at
// most once per cooldown and a few times an hour; what did not stick is not written again until its value changes (kept by record: a phone back on adb is written again). The
// settings are read in a shell of its own only while the inventory shows one differing.

import type { BookingVerdict } from '../../booking/gate.js';
import { CHECKS } from '../readiness/checks.js';
import { meetsValue, readValue } from '../../devices/readiness-grammar.js';

/**
 * The allowed list: nothing outside it is ever written. Each setting as the readiness check it answers reads it
 * (src/features/readiness/checks.ts): its key, how its value reads (a value outside that grammar, `null` without an
 * `absent` default, garbage, is unread and never written over), the baseline's value, and the framework's default where
 * the phone has no row (`absent`: `settings get` prints `null` then, read as that default and written over like any
 * value). `on`: what is written for `on`: stay awake's 7 (AC, USB and wireless), what Developer options' "Stay awake"
 * toggle writes (StayAwakePreferenceController.SETTING_VALUE_ON), with the USB bit a lab needs.
 */
const FIXES = ['stayAwake', 'windowAnimation', 'transitionAnimation', 'animatorDuration', 'verifyAdbInstalls', 'autoRotate'];

export const FIXABLE = CHECKS.flatMap(({ id, source, kind, expect }) =>
  source.kind === 'setting' && FIXES.includes(id)
    ? [{ check: id, namespace: source.namespace, key: source.key, kind, expect, absent: source.absent, on: id === 'stayAwake' ? '7' : undefined }]
    : [],
);

/** A setting the agent may put back. */
type Fixable = (typeof FIXABLE)[number];

/** One setting to put back: what the baseline wants of it and what is written. */
export interface Target {
  readonly setting: Fixable;
  /** The baseline's value (`on`, `off`, a number). */
  readonly expect: string;
  /** What is written: a number, never anything a shell would read otherwise. */
  readonly write: string;
}

const NUMBER = /^\d{1,9}(\.\d{1,6})?$/;

/** The targets of the baseline: the fixable checks it names with the value to write; a lab value not a plain number is left to a person. */
export function targetsOf(baseline: ReadonlyMap<string, string | undefined>) {
  const targets: Target[] = [];
  for (const setting of FIXABLE) {
    if (!baseline.has(setting.check)) continue;
    const expect = baseline.get(setting.check) ?? setting.expect;
    const write = setting.on !== undefined && expect === 'on' ? setting.on : setting.on !== undefined && expect === 'off' ? '0' : expect;
    if (NUMBER.test(write)) targets.push({ setting, expect, write });
  }
  return targets;
}

/** The phone's value as the check reads it (normalised: 0.0 is 0), or undefined when it is unread (`null`: no row, of a setting without a fixed default; garbage). */
export function readAs(setting: Fixable, value: string) {
  return value === 'null' && setting.absent !== undefined ? setting.absent : readValue(setting.kind, value);
}

/** Whether the value read meets the target, as the readiness check compares them; an unread value meets nothing (and differs from nothing). */
export function meets(target: Target, value: string) {
  const read = readAs(target.setting, value);
  return read !== undefined && meetsValue(target.setting.kind, read, target.expect);
}

/** Whether the value was read and differs from the target: only such a value is ever written over. */
export function differs(target: Target, value: string) {
  return readAs(target.setting, value) !== undefined && !meets(target, value);
}

/** What the action knows and did of one phone. */
export interface FixEntry {
  /** The values last read, by check name, as the phone printed them. */
  values?: Readonly<Record<string, string>>;
  /** Monotonic ms of the last read (answered or not). */
  readAt?: number;
  /** Reads that failed in a row. */
  failures: number;
  /** Settings that did not stick, by check name, with the value they read as then: not written again until it changes, while the record lasts. */
  stuck: Readonly<Record<string, string>>;
}

export const FIX_POLICY = {
  /** The settings are read again this long after the last read. */
  recheckMs: 5 * 60_000,
  /** A read that failed is tried again after this. */
  retryMs: 60_000,
  /** At most one fix per phone within this. */
  cooldownMs: 10 * 60_000,
  /** At most this many fixes per phone in any hour. */
  maxPerHour: 3,
};

export type FixSettings = typeof FIX_POLICY;

interface FixLook {
  /** Monotonic ms. */
  now: number;
  /** Another device claims its identity: the agent touches neither (src/actions/trust.ts). */
  conflicted: boolean;
  /** The values the phone's last inventory read, by check (src/devices/readiness-values.ts); none before its first readiness reading. */
  inventory?: Readonly<Record<string, string>>;
  /** The booking gate's verdict; none yet: a fix that turns on it is 'needs-verdict'. */
  verdict?: BookingVerdict;
  /** A read or a fix of the phone in flight: the runner's mark (runner.ts, isBusy), not the entry's. */
  busy?: boolean;
  /** When each fix of the phone within the last hour started (monotonic ms, oldest first): the runner's count (runner.ts, startsOf). */
  fixes: readonly number[];
}

/** One write of a fix: the setting, the value read before and the value written. */
export interface Write {
  readonly target: Target;
  readonly from: string;
}

type FixDecision =
  | { kind: 'none' }
  | { kind: 'needs-verdict' }
  /** Read the targets' settings. */
  | { kind: 'read' }
  /** Write these, then read each back. */
  | { kind: 'fix'; writes: readonly Write[] }
  /** Settings differ, but the cloud says booked or cannot say: nothing is written; said once (the runner's hold). */
  | { kind: 'refused'; reason: string };

export const HOUR_MS = 3_600_000;

/** The settings that differ from the baseline and may be written: not one that did not stick at the value it still reads. */
function writesOf(entry: Readonly<FixEntry>, targets: readonly Target[]) {
  return targets.flatMap((target) => {
    const value = entry.values?.[target.setting.check];
    return value === undefined || !differs(target, value) || entry.stuck[target.setting.check] === value ? [] : [{ target, from: value }];
  });
}

/** Whether the inventory shows a setting to put back differing (not one stuck at the value it reads): only then is a shell opened. */
function inventoryDiffers(entry: Readonly<FixEntry> | undefined, inventory: Readonly<Record<string, string>> | undefined, targets: readonly Target[]) {
  if (inventory === undefined) return false;
  return targets.some((target) => {
    const check = target.setting.check;
    const value = inventory[check];
    if (value === undefined || !differs(target, value)) return false;
    const stuck = entry?.stuck[check];
    return stuck === undefined || (readAs(target.setting, stuck) ?? stuck) !== readAs(target.setting, value);
  });
}

export function decideFix(entry: Readonly<FixEntry> | undefined, look: FixLook, targets: readonly Target[], s: FixSettings): FixDecision {
  if (look.busy || targets.length === 0) return { kind: 'none' };
  const last = entry?.readAt ?? -Infinity;
  const due = look.now - last >= (entry && entry.failures > 0 ? s.retryMs : s.recheckMs);
  // What was read is old: read again only where the inventory shows something to put back, and never write on it.
  if (due) return inventoryDiffers(entry, look.inventory, targets) ? { kind: 'read' } : { kind: 'none' };
  if (entry === undefined || look.conflicted) return { kind: 'none' };
  const writes = writesOf(entry, targets);
  if (writes.length === 0) return { kind: 'none' };
  const lastFix = look.fixes.at(-1);
  if (lastFix !== undefined && look.now - lastFix < s.cooldownMs) return { kind: 'none' };
  if (look.fixes.filter((t) => look.now - t < HOUR_MS).length >= s.maxPerHour) return { kind: 'none' };
  // Only a fresh "not booked": booked or unknown is a refusal; asking or waiting leaves the phone as it is.
  if (look.verdict === undefined) return { kind: 'needs-verdict' };
  if (look.verdict.kind === 'free') return { kind: 'fix', writes };
  const reason = refusalOf(look.verdict);
  return reason === undefined ? { kind: 'none' } : { kind: 'refused', reason };
}

/** Why a verdict other than "not booked" lets nothing be written: booked, or the cloud cannot say; undefined while it is being asked. */
export function refusalOf(verdict: BookingVerdict) {
  if (verdict.kind === 'booked') return 'the cloud says it is booked';
  return verdict.kind === 'unknown' ? `the cloud cannot say whether it is booked (${verdict.reason})` : undefined;
}

/** How young the cloud's "not booked" must be for a write to rest on it; older, it is asked again (docs/design/trust.md). */
export const ANSWER_MAX_AGE_MS = 3_000;

/** The entry after a read (values undefined: it failed); a setting whose value changed since it did not stick may be written again. */
export function afterRead(entry: Readonly<FixEntry> | undefined, values: Readonly<Record<string, string>> | undefined, now: number): FixEntry {
  const base: FixEntry = { failures: 0, stuck: {}, ...entry, readAt: now };
  if (values === undefined) return { ...base, failures: base.failures + 1 };
  const stuck = Object.fromEntries(Object.entries(base.stuck).filter(([check, was]) => values[check] === was));
  return { ...base, failures: 0, values, stuck };
}

/** What one write's read-back said. */
export interface ReadBack {
  readonly write: Write;
  /** The value read back; undefined: it could not be read. */
  readonly value: string | undefined;
}

/**
 * The entry after a fix and its read-backs: a setting not meeting the baseline now did not stick. `cut`: the phone
 * could not be asked midway; writes without a read-back stay as read (not "did not stick"), and the phone is read again
 * after the retry delay. The fix counted when it started, cut or not.
 */
export function afterFix(entry: Readonly<FixEntry>, readBacks: readonly ReadBack[], now: number, cut = false): FixEntry {
  const values: Record<string, string> = { ...entry.values };
  const stuck: Record<string, string> = { ...entry.stuck };
  for (const readBack of readBacks) {
    const { write, value } = readBack;
    const check = write.target.setting.check;
    const read = value ?? write.from;
    values[check] = read;
    if (stuckTo(readBack)) delete stuck[check];
    else stuck[check] = read;
  }
  return { ...entry, readAt: now, values, stuck, ...(cut && { failures: entry.failures + 1 }) };
}

/** Whether a read-back met the baseline. */
export function stuckTo(readBack: ReadBack) {
  return readBack.value !== undefined && meets(readBack.write.target, readBack.value);
}

import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { CHECKS } from '../../../src/features/readiness/checks.js';
import type { BookingVerdict } from '../../../src/booking/gate.js';
import { decideWithVerdict } from '../../../src/actions/runner.js';
import {
  afterFix,
  afterRead,
  decideFix,
  differs,
  FIXABLE,
  meets,
  targetsOf,
  type FixEntry,
  type FixSettings,
  type Target,
} from '../../../src/features/readiness-fix/policy.js';

const S: FixSettings = { recheckMs: 300_000, retryMs: 60_000, cooldownMs: 600_000, maxPerHour: 3 };
const NOW = 10_000_000;
const free: BookingVerdict = { kind: 'free' };
const DEFAULT = targetsOf(
  parseReadinessChecks([
    'stayAwake',
    'screenLock',
    'windowAnimation',
    'transitionAnimation',
    'animatorDuration',
    'verifyAdbInstalls',
    'autoRotate',
    'developerOptions',
    'usbDebugging',
  ]),
);

const target = (check: string): Target => DEFAULT.find((t) => t.setting.check === check)!;
const entry = (values: Record<string, string>, over: Partial<FixEntry> = {}): FixEntry => ({
  values,
  readAt: NOW - 1_000,
  failures: 0,
  stuck: {},
  ...over,
});
const OFF = { stayAwake: '0', windowAnimation: '1.0', transitionAnimation: '0', animatorDuration: '0', verifyAdbInstalls: '0', autoRotate: '0' };
const READY = { ...OFF, stayAwake: '7', windowAnimation: '0' };
/** Through the runner's own way to decide (runner.ts, decideWithVerdict): first without the gate's verdict, then with it when the decision turns on it. */
const decide = (
  e: FixEntry | undefined,
  verdict: BookingVerdict = free,
  conflicted = false,
  inventory: Record<string, string> | undefined = OFF,
  busy = false,
  fixes: readonly number[] = [],
) =>
  decideWithVerdict(
    (v) => decideFix(e, { now: NOW, conflicted, inventory, busy, fixes, ...(v && { verdict: v }) }, DEFAULT, S),
    () => verdict,
  );

describe("readiness's fix-it decisions", () => {
  it('reads what the readiness checks read, and nothing a person must decide is in the allowed list', () => {
    for (const f of FIXABLE) {
      const check = CHECKS.find((c) => c.id === f.check)!;
      expect(check.source, f.check).toEqual({ kind: 'setting', namespace: f.namespace, key: f.key, ...(f.absent !== undefined && { absent: f.absent }) });
      expect(check.expect, f.check).toBe(f.expect);
      expect(check.kind, f.check).toBe(f.kind);
    }
    expect(FIXABLE.map((f) => f.check)).not.toEqual(expect.arrayContaining(['screenLock']));
    for (const never of ['screenLock', 'developerOptions', 'usbDebugging', 'packageVerifier']) expect(DEFAULT.map((t) => t.setting.check)).not.toContain(never);
    expect(DEFAULT.map((t) => [t.setting.key, t.write])).toEqual([
      ['stay_on_while_plugged_in', '7'],
      ['window_animation_scale', '0'],
      ['transition_animation_scale', '0'],
      ['animator_duration_scale', '0'],
      ['verifier_verify_adb_installs', '0'],
      ['accelerometer_rotation', '0'],
    ]);
  });

  it("only the baseline's fixable checks, a lab's own value written only when it is a plain number", () => {
    expect(targetsOf(parseReadinessChecks(['stayAwake=3', 'windowAnimation=0.5', 'screenLock'])).map((t) => t.write)).toEqual(['3', '0.5']);
    expect(targetsOf(parseReadinessChecks(['stayAwake=off', 'autoRotate=1;reboot']))).toMatchObject([{ write: '0' }]);
    expect(targetsOf(parseReadinessChecks([]))).toEqual([]);
  });

  it('meets as the check does: stay awake the USB bit, a scale 0 or 0.0; garbage, and null (no row) of a setting without a fixed default, are unread: neither met nor differing, never written over', () => {
    expect(meets(target('stayAwake'), '3')).toBe(true);
    expect(meets(target('stayAwake'), '15')).toBe(true);
    // AC only: the phone sleeps on a lab's USB cable.
    expect(meets(target('stayAwake'), '1')).toBe(false);
    expect(differs(target('stayAwake'), '1')).toBe(true);
    expect(meets(target('windowAnimation'), '0.0')).toBe(true);
    for (const t of ['stayAwake', 'windowAnimation', 'verifyAdbInstalls', 'autoRotate'])
      for (const unread of ['', 'NaN', ' 0', '0x1'])
        expect([t, unread, meets(target(t), unread), differs(target(t), unread)]).toEqual([t, unread, false, false]);
    // `settings get` prints null for no row: the scales' reader has no fixed default, so it is unread.
    expect([meets(target('windowAnimation'), 'null'), differs(target('windowAnimation'), 'null')]).toEqual([false, false]);
  });

  it('reads null (no row) of a setting whose framework reader has a fixed default as that default (src/features/readiness/checks.ts names each reader): stay awake 1 (AC only), verify over USB 1, auto-rotation 0', () => {
    expect([meets(target('stayAwake'), 'null'), differs(target('stayAwake'), 'null')]).toEqual([false, true]);
    expect([meets(target('verifyAdbInstalls'), 'null'), differs(target('verifyAdbInstalls'), 'null')]).toEqual([false, true]);
    expect([meets(target('autoRotate'), 'null'), differs(target('autoRotate'), 'null')]).toEqual([true, false]);
  });

  it('opens a shell of its own only while the inventory shows a setting differing, but one that did not stick and still reads so', () => {
    expect(decide(undefined)).toEqual({ kind: 'read' });
    expect(decide(undefined, free, false, READY)).toEqual({ kind: 'none' });
    expect(decideFix(undefined, { now: NOW, conflicted: false, fixes: [] }, DEFAULT, S)).toEqual({ kind: 'none' });
    const stale = entry(OFF, { readAt: NOW - S.recheckMs });
    expect(decide(stale, free, false, READY)).toEqual({ kind: 'none' });
    expect(decide({ ...stale, stuck: { stayAwake: '0', windowAnimation: '1.0' } }, free, false, OFF)).toEqual({ kind: 'none' });
    expect(decide({ ...stale, stuck: { windowAnimation: '1.0' } }, free, false, OFF)).toEqual({ kind: 'read' });
  });

  it('reads first; writes only the settings that differ, on a fresh "not booked"', () => {
    expect(decide(undefined)).toEqual({ kind: 'read' });
    const d = decide(entry(OFF));
    expect(d.kind).toBe('fix');
    if (d.kind === 'fix')
      expect(d.writes.map((w) => [w.target.setting.key, w.from])).toEqual([
        ['stay_on_while_plugged_in', '0'],
        ['window_animation_scale', '1.0'],
      ]);
    expect(decide(entry({ ...OFF, stayAwake: '7', windowAnimation: '0' }))).toEqual({ kind: 'none' });
  });

  it('refuses a booked phone and one the cloud cannot speak for; writes nothing while asking or for a phone in an identity conflict', () => {
    expect(decide(entry(OFF), { kind: 'booked', answer: 1 })).toEqual({ kind: 'refused', reason: 'the cloud says it is booked' });
    expect(decide(entry(OFF), { kind: 'unknown', reason: 'cloud down' })).toMatchObject({ kind: 'refused' });
    expect(decide(entry(OFF), { kind: 'ask' })).toEqual({ kind: 'none' });
    expect(decide(entry(OFF), { kind: 'waiting' })).toEqual({ kind: 'none' });
    expect(decide(entry(OFF), free, true)).toEqual({ kind: 'none' });
  });

  it('one fix per cooldown, a few an hour, none while busy; reads again after recheck, sooner after a failure', () => {
    // The fixes' starts: the runner's count, handed in as a value.
    const fixesAt = (...starts: number[]) => decide(entry(OFF), free, false, OFF, false, starts);
    expect(fixesAt(NOW - 60_000)).toEqual({ kind: 'none' });
    expect(fixesAt(NOW - S.cooldownMs).kind).toBe('fix');
    expect(fixesAt(NOW - 3_000_000, NOW - 2_000_000, NOW - 1_000_000)).toEqual({ kind: 'none' });
    expect(fixesAt(NOW - 4_000_000, NOW - 2_000_000, NOW - 1_000_000).kind).toBe('fix');
    // A read or a fix in flight: the runner's mark, handed in as a value.
    expect(decide(entry(OFF), free, false, OFF, true)).toEqual({ kind: 'none' });
    expect(decide(entry(OFF, { readAt: NOW - S.recheckMs }))).toEqual({ kind: 'read' });
    expect(decide(entry(OFF, { readAt: NOW - S.retryMs, failures: 1 }))).toEqual({ kind: 'read' });
  });

  it('a value that did not stick is not written again until it changes', () => {
    const d = decide(entry(OFF));
    if (d.kind !== 'fix') throw new Error('expected a fix');
    const [stay, window] = d.writes;
    const after = afterFix(
      entry(OFF),
      [
        { write: stay!, value: '7' },
        { write: window!, value: '1.0' },
      ],
      NOW,
    );
    expect(after.stuck).toEqual({ windowAnimation: '1.0' });
    expect(after.values).toMatchObject({ stayAwake: '7', windowAnimation: '1.0' });
    const later = after;
    expect(decide(later, free, false, OFF, false, [NOW - S.cooldownMs])).toEqual({ kind: 'none' });
    // Still 1.0 at the next read: still left alone; someone set it to 0.5: written again.
    expect(afterRead(later, { ...OFF, stayAwake: '7' }, NOW).stuck).toEqual({ windowAnimation: '1.0' });
    const changed = afterRead(later, { ...OFF, stayAwake: '7', windowAnimation: '0.5' }, NOW);
    expect(changed.stuck).toEqual({});
    expect(decide(changed)).toMatchObject({ kind: 'fix', writes: [{ from: '0.5' }] });
  });

  it('a failed read keeps what was known and counts the failure', () => {
    const failed = afterRead(entry(OFF), undefined, NOW);
    expect(failed).toMatchObject({ failures: 1, values: OFF, readAt: NOW });
  });
});

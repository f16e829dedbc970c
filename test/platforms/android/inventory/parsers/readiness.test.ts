import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReadinessChecks, READINESS_CHECK_NAMES, readinessSettings } from '../../../../../src/features/readiness/settings.js';
import { appliesTo, CHECKS, valueOf } from '../../../../../src/features/readiness/checks.js';
import { readinessGauges } from '../../../../../src/features/readiness/metrics.js';
import { judge, stateOf, verdictCell, verdictMessage } from '../../../../../src/features/readiness/verdict.js';
import { parseReadiness, type ReadinessReading } from '../../../../../src/platforms/android/inventory/parsers/readiness.js';
import { READINESS_SETTINGS } from '../../../../../src/platforms/android/inventory/probes/readiness.js';
import { fixture as readinessFixture, readinessSection } from '../../../../features/readiness/section.js';

// The readiness sections' parser on what `settings list` prints on real
// devices (fixtures/SOURCES.md, settings-list/, and the LineageOS Galaxy A5
// and MIUI Mi 9T lists of test/features/readiness/fixtures/), and on the
// shapes its source prints when it cannot list (read from AOSP's SettingsCmd,
// SettingsService and cmd: the parser's header names them). The section is
// built as the phone's script prints it: each list cut to the keys the probe
// keeps, between its `namespace:` line and its exit status.

const listFixture = (name: string): string => readFileSync(new URL(`fixtures/settings-list/${name}`, import.meta.url), 'utf8');

const ALL = parseReadinessChecks([...READINESS_CHECK_NAMES]);
const DEFAULT = parseReadinessChecks(readinessSettings['readiness.checks'].default);

type Namespace = keyof typeof READINESS_SETTINGS;

/** The recorded lists: each the text of one namespace's `settings list`. */
const RECORDINGS: Array<{ name: string; namespace: Namespace; text: string }> = [
  { name: 'LineageOS 18.1 Galaxy A5 (global)', namespace: 'global', text: readinessFixture('lineage18-sm-a520f-global.txt') },
  { name: 'LineageOS 18.1 Galaxy A5 (system)', namespace: 'system', text: readinessFixture('lineage18-sm-a520f-system.txt') },
  { name: 'MIUI 12 Mi 9T (global, CRLF)', namespace: 'global', text: readinessFixture('miui12-mi9t-global.txt') },
  { name: 'MIUI 12 Mi 9T (system, CRLF)', namespace: 'system', text: listFixture('miui12-system.txt') },
  { name: 'Wear OS 16 emulator (global)', namespace: 'global', text: listFixture('wearos16-emulator-global.txt') },
  { name: 'Khadas VIM3L TV box (global)', namespace: 'global', text: listFixture('khadas-vim3l-global.txt') },
  { name: 'Khadas VIM3L TV box (system)', namespace: 'system', text: listFixture('khadas-vim3l-system.txt') },
  { name: 'an Android 8 device (global)', namespace: 'global', text: listFixture('android8-device-global.txt') },
  { name: 'a Samsung (androidqf capture)', namespace: 'global', text: listFixture('samsung-androidqf-excerpt.txt') },
];

function reading(text: string): ReadinessReading {
  const parsed = parseReadiness(text);
  if (!parsed) throw new Error('no reading');
  return parsed;
}

/** One namespace listed, its exit status `status`. */
const listed = (namespace: Namespace, text: string, status = 0): string => readinessSection({ lists: { [namespace]: { text, status } } });

describe('parseReadiness on recorded lists', () => {
  for (const r of RECORDINGS)
    it(`reads each kept row of ${r.name} as printed, and no other`, () => {
      const rows = r.text.replace(/\r/g, '').split('\n');
      const got = reading(listed(r.namespace, r.text)).settings.get(r.namespace)!;
      for (const key of READINESS_SETTINGS[r.namespace]) {
        const printed = rows.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
        expect([key, got.get(key)]).toEqual([key, printed.length === 1 ? printed[0] : undefined]);
      }
      expect([...got.keys()].every((k) => (READINESS_SETTINGS[r.namespace] as readonly string[]).includes(k))).toBe(true);
    });

  it('the Wear OS emulator: stay awake on AC only fails; developer options unread though adb_enabled=1, never "developer options 0"', () => {
    const verdict = judge(reading(listed('global', listFixture('wearos16-emulator-global.txt'))), DEFAULT, 'google');
    expect(verdict.failed.map((f) => f.check.id)).toEqual(['stayAwake', 'windowAnimation', 'transitionAnimation']);
    expect(verdict.unread).toEqual(expect.arrayContaining(['developerOptions', 'animatorDuration', 'autoSystemUpdates', 'screenLock', 'autoRotate']));
    expect(verdict.failed.map((f) => f.check.id)).not.toContain('developerOptions');
    expect(verdictMessage(verdict)).toContain('stay awake while charging is 1 (stay_on_while_plugged_in: AC only, asleep on USB), expected on over USB');
    expect(verdictMessage(verdict)).not.toContain('developer options');
    // Its usbDebugging, read, passes.
    const usb = judge(
      reading(listed('global', listFixture('wearos16-emulator-global.txt'))),
      parseReadinessChecks(['usbDebugging', 'developerOptions']),
      'google',
    );
    expect(usb).toEqual({ ready: false, failed: [], unread: ['developerOptions'] });
    expect(verdictCell(usb)).toBe('unread: developerOptions');
  });

  it('the Khadas TV box: automatic time off fails; what its cut list does not print is unread', () => {
    const text = readinessSection({
      lists: { global: { text: listFixture('khadas-vim3l-global.txt'), cut: true }, system: { text: listFixture('khadas-vim3l-system.txt'), cut: true } },
    });
    const verdict = judge(reading(text), parseReadinessChecks(['autoTime', 'autoTimeZone', 'autoRotate', 'airplaneMode', 'stayAwake']), 'Khadas');
    expect(verdict.failed.map((f) => [f.check.id, f.value])).toEqual([['autoTime', '0']]);
    expect(verdict.unread).toEqual(['stayAwake']);
  });

  it('the Samsung capture: Play Protect on fails packageVerifier; the MIUI system list (CRLF, vendor keys) reads auto-rotation off', () => {
    expect(
      judge(reading(listed('global', listFixture('samsung-androidqf-excerpt.txt'))), parseReadinessChecks(['packageVerifier']), 'samsung').failed,
    ).toMatchObject([{ check: { id: 'packageVerifier' }, value: '1' }]);
    expect(judge(reading(listed('system', listFixture('miui12-system.txt'))), parseReadinessChecks(['autoRotate']), 'Xiaomi')).toEqual({
      ready: true,
      failed: [],
      unread: [],
    });
  });
});

describe('parseReadiness when `settings` cannot list (from the source of what prints it)', () => {
  // What reaches the parser: the namespace line, the rows the probe keeps (none: the errors are on stderr, and `keep` passes no
  // line that is not a kept row), and the exit status.
  const cases: Array<[string, number]> = [
    // Android 5 (Fire OS 5 on a Fire TV stick): SettingsCmd has no `list`, prints "Invalid command: list" and its usage, exits 0.
    ['no `list` (Android 5, a TV stick): usage on stderr, exit 0', 0],
    // SettingsCmd: "Error while accessing settings provider" and a stack trace, exit 0; Android 7's `cmd` exits 0 whatever happened.
    ['the provider failed (SettingsCmd, Android 7 cmd): exit 0', 0],
    // SettingsService: "Invalid namespace 'x'", "Bad arguments", a SecurityException: exit 255.
    ['SettingsService refused: exit 255', 255],
    // cmd: "cmd: Can't find service: settings" (the provider not up yet), exit 20.
    ['no settings service: exit 20', 20],
    // toybox timeout: a hung provider, exit 124.
    ['hung past the probe deadline: exit 124', 124],
  ];
  for (const [what, status] of cases)
    it(`${what}: every setting check unread; the phone neither ready nor failing, not in readiness_devices{verdict="ready"}`, () => {
      const text = readinessSection({
        lists: { global: { text: '', status }, system: { text: '', status } },
        window: readinessFixture('dumpsys-window-policy-keyguard.txt'),
      });
      const verdict = judge(reading(text), DEFAULT, 'Amazon');
      expect(verdict.failed).toEqual([]);
      expect(verdict.ready).toBe(false);
      expect(stateOf(verdict)).toBe('unread');
      expect(verdict.unread).toContain('stayAwake');
      // Its keyguard answered: read and met, which makes it no more ready.
      expect(verdict.unread).not.toContain('screenLock');
      const [failing, devices] = readinessGauges([...DEFAULT.keys()], [verdict]);
      expect(failing!.samples.every((s) => s.value === 0)).toBe(true);
      expect(devices!.samples.map((s) => [s.labels!.verdict, s.value])).toEqual([
        ['ready', 0],
        ['not_ready', 0],
        ['unread', 1],
      ]);
    });
});

describe('parseReadiness on values the framework would not take', () => {
  it('NaN, an empty value, null, a value with spaces, a number where a flag is: unread, never failed', () => {
    for (const [row, check] of [
      ['window_animation_scale=NaN', 'windowAnimation'],
      ['window_animation_scale=Infinity', 'windowAnimation'],
      ['window_animation_scale=', 'windowAnimation'],
      ['adb_enabled=', 'usbDebugging'],
      ['adb_enabled=null', 'usbDebugging'],
      ['adb_enabled= 1', 'usbDebugging'],
      ['adb_enabled=true', 'usbDebugging'],
      ['development_settings_enabled=2', 'developerOptions'],
      ['stay_on_while_plugged_in=on', 'stayAwake'],
      ['wifi_on=4', 'wifi'],
    ] as const) {
      const verdict = judge(reading(listed('global', `${row}\n`)), parseReadinessChecks([check]), 'google');
      expect([row, verdict.failed.map((f) => f.check.id), verdict.unread.includes(check), verdict.ready]).toEqual([row, [], true, false]);
    }
  });

  it('development_settings_enabled absent while adb_enabled=1: developer options unread, USB debugging read', () => {
    const verdict = judge(reading(listed('global', 'adb_enabled=1\n')), parseReadinessChecks(['usbDebugging', 'developerOptions']), 'google');
    expect(verdict).toEqual({ ready: false, failed: [], unread: ['developerOptions'] });
  });

  it("a row printed twice in one list (another value's second line that reads like a row) is unread: the device's words, not the list's", () => {
    // Any shell user can put a newline in a setting: `settings put global device_name "x<newline>adb_enabled=0"` lists as two lines.
    const text = listed('global', 'adb_enabled=1\ndevice_name=x\nadb_enabled=0\n');
    expect(reading(text).settings.get('global')!.has('adb_enabled')).toBe(false);
    expect(judge(reading(text), parseReadinessChecks(['usbDebugging']), 'google')).toEqual({ ready: false, failed: [], unread: ['usbDebugging'] });
  });

  it("Wi-Fi's four states: on is 1 or 2 (on in airplane mode), off 0 or 3 (off by airplane mode)", () => {
    const wifi = parseReadinessChecks(['wifi']);
    expect(['0', '1', '2', '3'].map((v) => judge(reading(listed('global', `wifi_on=${v}\n`)), wifi, 'google').ready)).toEqual([false, true, true, false]);
    expect(verdictMessage(judge(reading(listed('global', 'wifi_on=3\n')), wifi, 'google'))).toContain(
      'Wi-Fi is 3 (wifi_on: off by airplane mode), expected on',
    );
  });
});

// Any text at all: the lines the section can hold (namespace and status lines, rows of the kept keys with values of every
// shape, repeats, noise) in any order. A check whose value was not read (no row in a namespace that ended 0, a row printed
// twice, a value outside its grammar) is never passed and never failed, and a phone with one is never ready.
describe('parseReadiness over any text', () => {
  const keys = Object.entries(READINESS_SETTINGS).flatMap(([ns, ks]) => ks.map((k) => [ns, k] as const));
  const value = fc.oneof(
    fc.constantFrom('0', '1', '2', '3', '7', '15', '1.0', '0.0', '0.5', 'null', '', 'NaN', 'true', ' 1', '-1', '1e0', '99999999999'),
    fc.string({ maxLength: 6 }),
  );
  const line = fc.oneof(
    fc.constantFrom(
      'namespace:global',
      'namespace:system',
      'status:global=0',
      'status:system=0',
      'status:global=255',
      'status:system=1',
      '',
      'secure=true',
      'secure=false',
    ),
    fc.tuple(fc.constantFrom(...keys), value).map(([[, k], v]) => `${k}=${v}`),
    fc.string({ maxLength: 30 }),
  );
  it('never yields ready, passed or failed for a check whose value was not read', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.constantFrom('google', 'Xiaomi', undefined), (lines, maker) => {
        const text = lines.join('\n');
        const parsed = parseReadiness(text);
        if (!parsed) return;
        const verdict = judge(parsed, ALL, maker);
        for (const check of CHECKS) {
          if (check.source.kind === 'fact') continue;
          const read = valueOf(check, parsed, maker) !== undefined;
          const failed = verdict.failed.some((f) => f.check.id === check.id);
          if (read || !appliesTo(check, parsed, maker)) continue;
          expect([check.id, failed, verdict.unread.includes(check.id), verdict.ready]).toEqual([check.id, false, true, false]);
        }
        // A setting is read only from a row printed once, in a list that ended 0, whose text its check's grammar takes.
        for (const [ns, rows] of parsed.settings)
          for (const [key, v] of rows) {
            const block = reference(lines, ns);
            expect(block?.get(key)).toEqual([v]);
          }
        if (verdict.ready) expect(verdict.unread).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});

/** The rows of the last block of `ns` that ended with status 0, by key, every value printed (the reference the parser must agree with). */
function reference(lines: readonly string[], ns: string): Map<string, string[]> | undefined {
  let current: string | undefined;
  let rows = new Map<string, string[]>();
  let last: Map<string, string[]> | undefined;
  for (const raw of lines.join('\n').replace(/\r/g, '').split('\n')) {
    const own = raw.trim();
    if (own.startsWith('namespace:')) {
      current = own.slice('namespace:'.length);
      rows = new Map();
      continue;
    }
    const status = /^status:([a-z]+)=(\d+)$/.exec(own);
    if (status) {
      if (current === ns && status[1] === ns && status[2] === '0') last = rows;
      current = undefined;
      continue;
    }
    if (/^secure=(true|false)$/.test(own) || own.startsWith('prop:')) continue;
    const m = /^([A-Za-z0-9_.:-]+)=(.*)$/.exec(raw);
    if (m && current !== undefined) rows.set(m[1]!, [...(rows.get(m[1]!) ?? []), m[2]!]);
  }
  return last;
}

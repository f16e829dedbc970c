import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkReadinessChecks, parseReadinessChecks, READINESS_CHECK_NAMES, readinessSettings } from '../../../src/features/readiness/settings.js';
import { CHECK_IDS, CHECKS } from '../../../src/features/readiness/checks.js';
import { judge, valuesOf, verdictMessage } from '../../../src/features/readiness/verdict.js';
import { parseGetprop } from '../../../src/platforms/android/inventory/parsers/getprop.js';
import { parseReadiness, type ReadinessReading } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { READINESS_PROPS, READINESS_SETTINGS } from '../../../src/platforms/android/inventory/probes/readiness.js';
import { fixture, readinessSection } from './section.js';

// The readiness checks and the verdict on recorded `settings list` and
// `dumpsys window policy` outputs (fixtures/README.md names each source).

const ALL = parseReadinessChecks([...READINESS_CHECK_NAMES]);
// The baseline a lab gets without setting one.
const DEFAULT = parseReadinessChecks(readinessSettings['readiness.checks'].default);

function reading(text: string): ReadinessReading {
  const parsed = parseReadiness(text);
  if (!parsed) throw new Error('no reading');
  return parsed;
}

const lineage = readinessSection({
  lists: { global: { text: fixture('lineage18-sm-a520f-global.txt') }, system: { text: fixture('lineage18-sm-a520f-system.txt') } },
  window: fixture('dumpsys-window-policy-keyguard.txt'),
});
const mi9t = readinessSection({
  lists: { global: { text: fixture('miui12-mi9t-global.txt') } },
  // MIUI 12's version code (the Redmi 8A's MIUI 12.5 prints 11, getprop/collect); its toggles blank (a reconstruction).
  props: { 'persist.security.adbinput': '', 'persist.security.adbinstall': '', 'ro.miui.ui.version.code': '10' },
});

describe('the readiness section', () => {
  it('reads the kept settings of a LineageOS Galaxy A5, an unset key left to its Android default', () => {
    const r = reading(lineage);
    expect(Object.fromEntries(r.settings.get('global')!)).toMatchObject({ stay_on_while_plugged_in: '0', window_animation_scale: '1.0', adb_enabled: '1' });
    expect(r.settings.get('global')!.has('verifier_verify_adb_installs')).toBe(false);
    expect(r.settings.get('system')!.get('accelerometer_rotation')).toBe('0');
    expect(r.keyguardSecure).toBe(false);
  });

  it("reads a Mi 9T's CRLF list; a namespace whose list failed (status 1) is unread, not all-defaults", () => {
    const r = reading(mi9t);
    expect(r.settings.get('global')!.get('wifi_on')).toBe('0');
    expect(r.settings.has('system')).toBe(false);
    expect(r.props.get('persist.security.adbinput')).toBe('');
  });

  it('gives no reading for an output with none of its lines (a shell that printed only an error)', () => {
    expect(parseReadiness('/system/bin/sh: settings: inaccessible or not found\n')).toBeUndefined();
  });

  it('keeps a stray key line out of the namespace it does not follow', () => {
    const r = reading('wifi_on=1\nnamespace:global\nwifi_on=0\nstatus:global=0\n');
    expect(r.settings.get('global')!.get('wifi_on')).toBe('0');
  });
});

describe('the checks', () => {
  it('are the ones the settings name, each reading a key the probe keeps', () => {
    expect([...CHECK_IDS].sort()).toEqual([...READINESS_CHECK_NAMES].sort());
    const kept = new Set<string>(Object.values(READINESS_SETTINGS).flat());
    for (const check of CHECKS) {
      if (check.source.kind === 'setting') expect(kept.has(check.source.key), check.id).toBe(true);
      if (check.source.kind === 'prop') expect(READINESS_PROPS as readonly string[]).toContain(check.source.name);
    }
  });
});

describe('the verdict', () => {
  it("names what the LineageOS Galaxy A5 fails against the default baseline, each with its fix; a row its whole list does not print is its reader's fixed default", () => {
    const verdict = judge(reading(lineage), DEFAULT, 'samsung');
    expect(verdict.ready).toBe(false);
    expect(verdict.failed.map((f) => f.check.id)).toEqual([
      'stayAwake',
      'windowAnimation',
      'transitionAnimation',
      'animatorDuration',
      'verifyAdbInstalls',
      'autoSystemUpdates',
    ]);
    const message = verdictMessage(verdict)!;
    expect(message).toContain(
      'stay awake while charging is 0 (stay_on_while_plugged_in: off), expected on over USB: Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7)',
    );
    // No verifier_verify_adb_installs row (a phone that never wrote it): PackageManagerService and its successors read it as 1.
    expect(message).toContain("verify apps over USB is 1 (verifier_verify_adb_installs: no row, the framework's default), expected 0");
    expect(verdict.unread).toEqual([]);
  });

  it('a row absent from a list not read whole (a failed list, one that printed no row) stays unread; a row printed twice too', () => {
    const baseline = parseReadinessChecks(['verifyAdbInstalls', 'stayAwake']);
    const failed = reading(readinessSection({ lists: { global: { text: fixture('lineage18-sm-a520f-global.txt'), status: 255 } } }));
    expect(judge(failed, baseline, 'samsung')).toEqual({ ready: false, failed: [], unread: ['stayAwake', 'verifyAdbInstalls'] });
    // Android 5's SettingsCmd without `list`: its usage on stderr, exit 0, no row.
    const none = reading(readinessSection({ lists: { global: { text: 'Invalid command: list\nusage:  settings [--user NUM] get namespace key\n' } } }));
    expect(judge(none, baseline, 'samsung').unread).toEqual(['stayAwake', 'verifyAdbInstalls']);
    const twice = reading(
      readinessSection({ lists: { global: { text: 'stay_on_while_plugged_in=7\nverifier_verify_adb_installs=0\nverifier_verify_adb_installs=0\n' } } }),
    );
    expect(judge(twice, baseline, 'samsung')).toEqual({ ready: false, failed: [], unread: ['verifyAdbInstalls'] });
  });

  it('a check whose framework readers disagree between versions (or depend on the build) is unread without its row, whole list or not', () => {
    const lone = reading(readinessSection({ lists: { global: { text: 'stay_on_while_plugged_in=7\n' } } }));
    const baseline = parseReadinessChecks([
      'developerOptions',
      'usbDebugging',
      'autoTime',
      'autoTimeZone',
      'autoSystemUpdates',
      'packageVerifier',
      'windowAnimation',
    ]);
    expect(judge(lone, baseline, 'google')).toEqual({
      ready: false,
      failed: [],
      unread: [...baseline.keys()].sort((a, b) => CHECK_IDS.indexOf(a) - CHECK_IDS.indexOf(b)),
    });
    // And those with a fixed default: airplane mode and battery saver 0, Wi-Fi 0 (off), auto-rotation 0.
    const fixed = judge(lone, parseReadinessChecks(['airplaneMode', 'batterySaver', 'wifi']), 'google');
    expect(fixed.failed.map((f) => [f.check.id, f.value, f.noRow])).toEqual([['wifi', '0', true]]);
    expect(fixed.unread).toEqual([]);
  });

  it("judges a Mi 9T's global settings; its system list and keyguard unread are neither passed nor failed", () => {
    const verdict = judge(reading(mi9t), ALL, 'Xiaomi');
    expect(verdict.failed.map((f) => f.check.id)).toEqual([
      'stayAwake',
      'windowAnimation',
      'transitionAnimation',
      'animatorDuration',
      'packageVerifier',
      'wifi',
    ]);
    // Its system list and keyguard were not given; its Xiaomi toggles are blank (no recording shows their default).
    expect(verdict.unread).toEqual(['screenLock', 'autoRotate', 'xiaomiInput', 'xiaomiInstall']);
    expect(verdict.ready).toBe(false);
  });

  it("takes the lab's own value over the default (NAME=VALUE), and judges only the checks listed", () => {
    const own = parseReadinessChecks(['stayAwake=off', 'windowAnimation=1', 'autoSystemUpdates']);
    const verdict = judge(reading(lineage), own, 'samsung');
    expect(verdict.failed.map((f) => f.check.id)).toEqual(['autoSystemUpdates']);
  });

  it('is ready, with no message, when every listed check passes', () => {
    const verdict = judge(
      reading(lineage),
      parseReadinessChecks(['usbDebugging', 'developerOptions', 'autoRotate', 'screenLock', 'airplaneMode', 'wifi']),
      'samsung',
    );
    expect(verdict).toEqual({ ready: true, failed: [], unread: [] });
    expect(verdictMessage(verdict)).toBeUndefined();
  });

  it('names a secure screen lock (reconstruction: the same block with secure=true, as AOSP prints it)', () => {
    const text = readinessSection({ window: fixture('dumpsys-window-policy-keyguard.txt').replace('secure=false', 'secure=true') });
    const verdict = judge(reading(text), DEFAULT, 'Google');
    expect(verdictMessage(verdict)).toBe(
      "not ready for automation (1 of the lab's checks failed): secure screen lock is set, expected none: Settings > Security > Screen lock: None or Swipe (a person must remove the PIN, pattern or password)",
    );
  });

  it("judges Xiaomi's toggles on Xiaomi phones only, and a blank property as unread (reconstruction: no recording found)", () => {
    const off = readinessSection({ props: { 'persist.security.adbinput': '0', 'persist.security.adbinstall': '1' } });
    expect(judge(reading(off), DEFAULT, 'POCO').failed.map((f) => f.check.id)).toEqual(['xiaomiInput']);
    expect(judge(reading(off), DEFAULT, 'google').failed).toEqual([]);
    expect(judge(reading(mi9t), parseReadinessChecks(['xiaomiInput']), 'Xiaomi').failed).toEqual([]);
  });
});

describe("Xiaomi's toggles on Xiaomi hardware", () => {
  const dump = (path: string): string => readFileSync(new URL(path, import.meta.url), 'utf8');
  /** The keyguard section as the probe prints it for a phone with this whole `getprop` dump: `getprop NAME` prints nothing for a property it has not. */
  const probed = (getprop: string): string => {
    const props = parseGetprop(getprop);
    return readinessSection({
      window: fixture('dumpsys-window-policy-keyguard.txt'),
      props: Object.fromEntries(READINESS_PROPS.map((p) => [p, props[p] ?? ''])),
    });
  };
  const checks = parseReadinessChecks(['screenLock', 'xiaomiInput', 'xiaomiInstall']);
  const collect = '../../platforms/android/inventory/parsers/fixtures/getprop/collect/';

  it('are not the checks of a Xiaomi running no MIUI or HyperOS (LineageOS on a POCO F6): neither unread nor judged; a MIUI or HyperOS one is judged on them', () => {
    // LineageOS 22 for peridot (ro.build.display.id lineage_peridot-userdebug), manufacturer Xiaomi, brand POCO: no ro.miui.*, ro.mi.os.*, persist.security.adb*.
    const lineage = reading(probed(dump('../../fixtures/devices/xiaomi-poco-f6/getprop.txt')));
    expect(judge(lineage, checks, 'POCO')).toEqual({ ready: true, failed: [], unread: [] });
    expect(valuesOf(lineage, checks, 'POCO')).toEqual({ screenLock: 'false' });
    // HyperOS 2 on a Xiaomi 14, MIUI 12.5 on a Redmi 8A: both toggles read, on.
    for (const name of ['hyperos-android15-xiaomi-14.txt', 'miui-android10-redmi-8a.txt']) {
      const stock = reading(probed(dump(collect + name)));
      expect(valuesOf(stock, checks, 'Xiaomi'), name).toEqual({ screenLock: 'false', xiaomiInput: '1', xiaomiInstall: '1' });
      expect(judge(stock, checks, 'Xiaomi').ready, name).toBe(true);
      // Judged: a lab that wants them off finds both on.
      expect(
        judge(stock, parseReadinessChecks(['xiaomiInput=0', 'xiaomiInstall=0']), 'Xiaomi').failed.map((f) => f.check.id),
        name,
      ).toEqual(['xiaomiInput', 'xiaomiInstall']);
    }
    // The section unread: whether it runs MIUI is not known, so the toggles are unread, never passed.
    expect(judge(reading(readinessSection({ window: fixture('dumpsys-window-policy-keyguard.txt') })), checks, 'Xiaomi').unread).toEqual([
      'xiaomiInput',
      'xiaomiInstall',
    ]);
  });
});

describe('readiness.checks', () => {
  it('takes NAME and NAME=VALUE, and leaves out what is no check', () => {
    expect([...parseReadinessChecks(['stayAwake', 'wifi=0', 'bogus'])]).toEqual([
      ['stayAwake', undefined],
      ['wifi', '0'],
    ]);
  });

  it('refuses, when the settings load, a name that is no check', () => {
    expect(checkReadinessChecks(['stayAwake', 'wifi=1'])).toBeUndefined();
    expect(checkReadinessChecks(['stayawake'])).toMatch(/^must be NAME or NAME=VALUE entries with NAME one of stayAwake, .*; got "stayawake"$/);
  });
});

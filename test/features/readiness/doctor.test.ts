import type { DoctorPhone } from '../../../src/features/context.js';
import type { ReadinessAnswer } from '../../../src/platforms/doctor.js';
import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { readinessItems } from '../../../src/features/readiness/doctor.js';
import { READINESS_COMMAND, splitReadiness } from '../../../src/platforms/android/doctor.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { END_MARKER, marker, sectionStart } from '../../../src/platforms/android/inventory/script.js';
import { fixture, readinessSection } from './section.js';

// The doctor's readiness lines from what the one shell per device prints:
// the model's line, then the readiness sections as the inventory's script
// prints them, built from the recorded lists of fixtures (a LineageOS Galaxy
// A5 and a MIUI Mi 9T; sources in test/features/readiness/fixtures/README.md).

const DEFAULTS = parseReadinessChecks([
  'stayAwake',
  'screenLock',
  'windowAnimation',
  'transitionAnimation',
  'animatorDuration',
  'verifyAdbInstalls',
  'autoRotate',
  'autoTime',
  'autoTimeZone',
  'airplaneMode',
  'batterySaver',
  'autoSystemUpdates',
  'developerOptions',
  'usbDebugging',
  'xiaomiInput',
  'xiaomiInstall',
]);

/** What the phone prints: its model, then the three sections (all the text in the first, as the parser reads them together), then its brand. */
function output(section: string, brand = 'samsung'): string {
  return `SM-A520F\n${marker('readiness_global')}\n${section}${marker('readiness_system')}\n${marker('readiness_keyguard')}\n${END_MARKER}\nbrand:${brand}\n`;
}

const READY_GLOBAL = fixture('lineage18-sm-a520f-global.txt')
  .replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7')
  .replace(/^(window|transition)_animation_scale=1\.0$/gm, '$1_animation_scale=0')
  .replace('animator_duration_scale=1.0', 'animator_duration_scale=0')
  .replace('ota_disable_automatic_update=0', 'ota_disable_automatic_update=1')
  .replace('usb_mass_storage_enabled=1', 'usb_mass_storage_enabled=1\nverifier_verify_adb_installs=0');

function section(global: string): string {
  return readinessSection({
    lists: { global: { text: global }, system: { text: fixture('lineage18-sm-a520f-system.txt') } },
    window: fixture('dumpsys-window-policy-keyguard.txt'),
  });
}

/** A phone as the doctor hands it to the features: its readiness part parsed by the platform, as checkAdb does. */
function phone(serial: string, answer?: ReadinessAnswer): DoctorPhone {
  return {
    serial,
    state: 'device',
    ...(answer && { readiness: { reading: parseReadiness(answer.text), ...(answer.brand !== undefined && { brand: answer.brand }) } }),
  };
}

describe('splitReadiness', () => {
  it('cuts the model (and battery) part from the readiness part, with the brand', () => {
    const { head, readiness } = splitReadiness(output(section(READY_GLOBAL), 'Xiaomi'));
    expect(head).toBe('SM-A520F\n');
    expect(readiness?.brand).toBe('Xiaomi');
    expect(readiness?.text).toContain('stay_on_while_plugged_in=7');
  });

  it('without the readiness part (a shell cut short before it), all of it is the head', () => {
    expect(splitReadiness('SM-A520F\n')).toEqual({ head: 'SM-A520F\n' });
  });

  it('the command is the inventory sections and the brand', () => {
    expect(READINESS_COMMAND).toContain(sectionStart('readiness_global'));
    expect(READINESS_COMMAND).toContain('getprop ro.product.brand');
  });
});

describe('readinessItems', () => {
  it('a phone that fails names each failed check with its value and, in the advice, what to do about each', () => {
    const notReady = splitReadiness(
      output(
        section(
          READY_GLOBAL.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0').replace(
            'verifier_verify_adb_installs=0',
            'verifier_verify_adb_installs=1',
          ),
        ),
      ),
    );
    const ready = splitReadiness(output(section(READY_GLOBAL)));
    const items = readinessItems([phone('R58A', notReady.readiness), phone('R58B', ready.readiness)], DEFAULTS);
    expect(items).toEqual([
      {
        id: 'phone.readiness',
        phone: 'R58A',
        status: 'warn',
        finding:
          'device R58A: not ready for automation: stay awake while charging is 0 (stay_on_while_plugged_in: off), expected on over USB, verify apps over USB is 1 (verifier_verify_adb_installs), expected 0',
        advice:
          'stay awake while charging: Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7); verify apps over USB: Developer options > Verify apps over USB off (adb shell settings put global verifier_verify_adb_installs 0)',
      },
      { id: 'phone.readiness', phone: 'R58B', status: 'ok', finding: "device R58B: ready for automation against the lab's baseline (readiness.checks)" },
    ]);
  });

  it('a phone whose reading answered none of the checks, or whose shell told no readiness part, is unread and why, never called ready', () => {
    const unread = splitReadiness(output(readinessSection({}))).readiness;
    const ready = splitReadiness(output(section(READY_GLOBAL))).readiness;
    // The Galaxy A5, stay awake on, verify apps over USB printed twice (another value's second line): unread.
    const partly = splitReadiness(
      output(
        section(
          fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7') +
            'verifier_verify_adb_installs=0\nverifier_verify_adb_installs=0\n',
        ),
      ),
    ).readiness;
    expect(
      readinessItems(
        [phone('R58B', ready), phone('R58C', unread), phone('R58D', partly), phone('OFFLINE'), { ...phone('LOCKED'), unread: 'adb lists it unauthorized' }],
        parseReadinessChecks(['stayAwake', 'verifyAdbInstalls']),
      ).map((i) => [i.phone, i.status, i.finding]),
    ).toEqual([
      ['R58B', 'ok', "device R58B: ready for automation against the lab's baseline (readiness.checks)"],
      ['R58C', 'unread', 'its readiness sections answered none of the checks'],
      ['R58D', 'unread', 'verifyAdbInstalls not read, never called ready'],
      ['OFFLINE', 'unread', 'its shell printed no readiness part'],
      ['LOCKED', 'unread', 'adb lists it unauthorized'],
    ]);
  });

  it('an empty baseline says nothing', () => {
    expect(readinessItems([phone('R58B', splitReadiness(output(section(READY_GLOBAL))).readiness)], new Map())).toEqual([]);
  });
});

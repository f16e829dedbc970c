import { readinessDoctor } from '../../src/features/readiness/doctor.js';
import { wearDoctor } from '../../src/features/wear/doctor.js';
import { describe, expect, it } from 'vitest';
import { ADB_DOCTOR } from '../../src/platforms/android/doctor.js';
import { parseReadinessChecks } from '../../src/features/readiness/settings.js';
import { checkAdb, type DoctorAdb } from '../../src/doctor/checks.js';
import { ShellTimeoutError } from '../../src/platforms/android/adb/errors.js';
import { END_MARKER, marker } from '../../src/platforms/android/inventory/script.js';
import { fixture, readinessSection } from '../features/readiness/section.js';
import { fixture as wearFixture, wearFilesSection } from '../features/wear/section.js';

// checkAdb with the readiness baseline, against an adb whose one shell per
// device prints what the phone would: the model's line, then the readiness
// sections (from the recorded Galaxy A5 lists of test/features/readiness/fixtures/),
// or stops in the middle of them at the deadline.

const baseline = parseReadinessChecks(['stayAwake', 'verifyAdbInstalls']);
// The recording with a verify apps over USB row of 1 (it has none, which would be unread).
const readiness = `${marker('readiness_global')}\n${readinessSection({ lists: { global: { text: fixture('lineage18-sm-a520f-global.txt') + 'verifier_verify_adb_installs=1\n' } } })}${marker('readiness_system')}\n`;

function adb(shell: (serial: string, command: string) => Promise<string>): DoctorAdb & { commands: string[] } {
  const commands: string[] = [];
  return {
    label: 'tcp:127.0.0.1:5037',
    commands,
    version: () => Promise.resolve(41),
    listDevices: () =>
      Promise.resolve([
        { serial: 'WHOLE01', state: 'device' },
        { serial: 'CUT0002', state: 'device' },
      ]),
    shell: async (serial, command) => {
      commands.push(command);
      const output = await shell(serial, command);
      return { output, bytes: output.length, truncated: false };
    },
  };
}

const options = {
  service: ADB_DOCTOR,
  answerTimeoutMs: 1_000,
  shellTimeoutMs: 1_000,
  concurrency: 2,
  hiddenDevices: [],
  features: [readinessDoctor(baseline)],
  readinessTimeoutMs: 15_000,
};

describe('checkAdb with the readiness baseline', () => {
  it('reads the sections in the one shell; a shell cut in them keeps its model line, and its checks are unread, never ready', async () => {
    const fake = adb((serial) =>
      serial === 'WHOLE01'
        ? Promise.resolve(`SM-A520F\n${readiness}${marker('readiness_keyguard')}\n${END_MARKER}\nbrand:samsung\n`)
        : Promise.reject(new ShellTimeoutError(serial, 15_000, `SM-A520F\n${readiness}`)),
    );
    const items = await checkAdb(fake, options);
    expect(fake.commands).toHaveLength(2);
    expect(fake.commands[0]).toMatch(/^getprop ro\.product\.model\n/);
    expect(items.find((i) => i.finding.startsWith('device CUT0002'))).toMatchObject({ status: 'ok', finding: 'device CUT0002: device, SM-A520F' });
    expect(items.find((i) => i.finding.startsWith('readiness:'))?.finding).toBe(
      "readiness: 0 of 2 phones ready for automation against the lab's baseline (readiness.checks: 2 checks); 1 with checks unread, counted apart",
    );
    expect(items.find((i) => i.finding.startsWith('device CUT0002: readiness'))?.finding).toBe(
      'device CUT0002: readiness unread, never called ready: its readiness sections answered none of the checks',
    );
    expect(items.find((i) => i.finding.startsWith('device WHOLE01: not ready'))?.finding).toBe(
      'device WHOLE01: not ready for automation: stay awake while charging is 0 (stay_on_while_plugged_in: off), expected on over USB, verify apps over USB is 1 (verifier_verify_adb_installs), expected 0',
    );
  });

  it('a shell cut before the readiness part is the shell failing, as before', async () => {
    const items = await checkAdb(
      adb((serial) => Promise.reject(new ShellTimeoutError(serial, 15_000, ''))),
      options,
    );
    expect(items.find((i) => i.finding.startsWith('device CUT0002'))?.finding).toMatch(
      /its shell failed: device CUT0002 did not finish its shell session within 15000 ms/,
    );
    expect(items.some((i) => i.finding.startsWith('readiness:'))).toBe(false);
  });
});

describe('checkAdb with readiness and wear', () => {
  const wear = wearDoctor(
    {
      batteryMinHealthPercent: 80,
      batteryMaxCycles: 800,
      swellingHeldFullHours: 72,
      swellingWarmCelsius: 35,
      appIdLimit: 19990,
      storageMaxLifeUsedPercent: 90,
      noticeDays: 30,
      baselinePackages: [],
      tmpMaxMiB: 1024,
    },
    () => new Map(),
    () => Date.UTC(2026, 10, 27),
  );
  // The Mi 6's worn bms uevent (test/features/wear/fixtures/SOURCES.md), as the wear_files section prints it.
  const files = `${marker('wear_files')}\n${wearFilesSection({ supplies: { bms: wearFixture('mi6-c1_atl-bms-uevent.txt') } })}${marker('wear_packages')}\n`;

  it('reads the wear sections after readiness in the same shell; one cut in them keeps the readiness part whole and the wear read so far', async () => {
    const fake = adb((serial) =>
      Promise.reject(new ShellTimeoutError(serial, 15_000, `SM-A520F\n${readiness}${marker('readiness_keyguard')}\n${END_MARKER}\nbrand:samsung\n${files}`)),
    );
    const items = await checkAdb(fake, { ...options, features: [...options.features, wear] });
    expect(fake.commands[0]).toContain(marker('wear_tradein'));
    expect(fake.commands[0]!.indexOf(marker('wear_files'))).toBeGreaterThan(fake.commands[0]!.indexOf(marker('readiness_keyguard')));
    expect(items.find((i) => i.finding.startsWith('device CUT0002: not ready'))).toBeDefined();
    expect(items.find((i) => i.finding === 'device CUT0002: wear battery_capacity now')).toMatchObject({ status: 'warn', phone: true });
  });
});

import { readinessDoctor } from '../../src/features/readiness/doctor.js';
import { wearDoctor } from '../../src/features/wear/doctor.js';
import { describe, expect, it } from 'vitest';
import { ADB_DOCTOR } from '../../src/platforms/android/doctor.js';
import { parseReadinessChecks } from '../../src/features/readiness/settings.js';
import { checkAdb, type DoctorAdb } from '../../src/doctor/checks.js';
import type { DoctorPhone } from '../../src/features/context.js';
import { ShellTimeoutError } from '../../src/platforms/android/adb/errors.js';
import { END_MARKER, marker, sectionStart } from '../../src/platforms/android/inventory/script.js';
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
  shellTimeoutMs: 15_000,
  concurrency: 2,
  hiddenDevices: [],
  features: [readinessDoctor(baseline)],
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
    expect(fake.commands[0]).toMatch(
      /^getprop ro\.product\.model; echo "ro\.serialno:\$\(getprop ro\.serialno\)"; echo "ro\.boot\.serialno:\$\(getprop ro\.boot\.serialno\)"\n/,
    );
    expect(items.find((i) => i.finding.startsWith('device CUT0002'))).toMatchObject({ status: 'ok', finding: 'device CUT0002: device, SM-A520F' });
    expect(items.filter((i) => i.id === 'phone.readiness' && i.phone === 'CUT0002')).toEqual([
      { id: 'phone.readiness', phone: 'CUT0002', status: 'unread', finding: 'its shell was cut short after 15 s' },
    ]);
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
    const unread = items.filter((i) => i.id === 'phone.readiness');
    expect(unread.map((i) => [i.phone, i.status])).toEqual([
      ['CUT0002', 'unread'],
      ['WHOLE01', 'unread'],
    ]);
    for (const i of unread) expect(i.finding).toMatch(/^its shell failed: device \S+ did not finish its shell session within 15000 ms/);
  });
});

describe('checkAdb with readiness and wear', () => {
  const settings = {
    batteryMinHealthPercent: 80,
    batteryMaxCycles: 800,
    swellingHeldFullHours: 72,
    swellingWarmCelsius: 35,
    appIdLimit: 19990,
    storageMaxLifeUsedPercent: 90,
    noticeDays: 30,
    baselinePackages: [],
    tmpMaxMiB: 1024,
  };
  const wear = wearDoctor(
    settings,
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
    expect(fake.commands[0]).toContain(sectionStart('wear_tradein'));
    expect(fake.commands[0]!.indexOf(sectionStart('wear_files'))).toBeGreaterThan(fake.commands[0]!.indexOf(sectionStart('readiness_keyguard')));
    expect(items.find((i) => i.finding.startsWith('device CUT0002: not ready'))).toBeDefined();
    expect(items.find((i) => i.finding === 'device CUT0002: worn: battery capacity now')).toMatchObject({ id: 'phone.wear', status: 'warn', phone: 'CUT0002' });
  });

  it('a shell cut in the readiness part leaves the wear unread, and says why: never a phone without its wear line', async () => {
    const fake = adb((serial) =>
      serial === 'WHOLE01'
        ? Promise.resolve(`SM-A520F\n${readiness}${marker('readiness_keyguard')}\n${END_MARKER}\nbrand:samsung\n${files}${END_MARKER}\n`)
        : Promise.reject(new ShellTimeoutError(serial, 15_000, `SM-A520F\n${readiness}`)),
    );
    const items = await checkAdb(fake, { ...options, features: [...options.features, wear] });
    expect(items.filter((i) => i.id === 'phone.wear').map((i) => [i.phone, i.status, i.finding])).toEqual([
      ['CUT0002', 'unread', 'its shell was cut short after 15 s'],
      ['WHOLE01', 'warn', 'device WHOLE01: worn: battery capacity now'],
    ]);
  });

  it("reads the udid the phone gives in the same shell, before the wear sections (ro.boot.serialno where ro.serialno is empty): a network phone's history is found by it, not by HOST:PORT", async () => {
    const today = Math.floor(Date.UTC(2026, 10, 27) / 86_400_000);
    const history = Array.from({ length: 30 }, (_, i) => ({ day: today - 30 + i, health: 100 - Math.floor(i / 2) }));
    const fading = wearDoctor(
      settings,
      () => new Map([['NETUDID1', history]]),
      () => Date.UTC(2026, 10, 27),
    );
    const at85 = `${marker('wear_files')}\n${wearFilesSection({ supplies: { bms: wearFixture('mi6-c1_atl-bms-uevent.txt').replace(/^POWER_SUPPLY_CHARGE_FULL=\d+$/m, 'POWER_SUPPLY_CHARGE_FULL=2847500') } })}${marker('wear_packages')}\n`;
    const fake = adb(() => Promise.resolve(`Pixel 8 Pro\nro.serialno:\nro.boot.serialno:NETUDID1\n${at85}${END_MARKER}\n`));
    fake.listDevices = () => Promise.resolve([{ serial: '10.0.0.5:5555', state: 'device' }]);
    const items = await checkAdb(fake, { ...options, features: [fading] });
    expect(fake.commands[0]!.indexOf('getprop ro.serialno')).toBeLessThan(fake.commands[0]!.indexOf(sectionStart('wear_files')));
    expect(fake.commands[0]).toContain('getprop ro.serialno');
    expect(items.find((i) => i.finding.startsWith('device 10.0.0.5:5555: worn: battery capacity in about'))).toMatchObject({ status: 'warn' });
  });

  it("hands each feature's doctor the phone as read: its state, udid and the readiness part with the phone's brand", async () => {
    const seen: DoctorPhone[] = [];
    const fake = adb(() => Promise.resolve(`SM-A520F\n${readiness}${marker('readiness_keyguard')}\n${END_MARKER}\nbrand:samsung\n`));
    await checkAdb(fake, { ...options, features: [{ reads: ['readiness'], phone: (p) => (seen.push(p), []) }] });
    expect(seen.map((p) => [p.serial, p.state, p.readiness?.brand, p.readiness?.reading !== undefined, p.battery])).toEqual([
      ['CUT0002', 'device', 'samsung', true, undefined],
      ['WHOLE01', 'device', 'samsung', true, undefined],
    ]);
  });
});

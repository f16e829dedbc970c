import { describe, expect, it } from 'vitest';
import { dayOf } from '../../../src/features/wear/forecast.js';
import type { WearSettings } from '../../../src/features/wear/judge.js';
import { ADB_DOCTOR } from '../../../src/platforms/android/doctor.js';
import { wearOfOutput, WEAR_COMMAND } from '../../../src/platforms/android/wear.js';
import { splitSections } from '../../../src/platforms/android/inventory/script.js';
import { wearItems } from '../../../src/features/wear/doctor.js';
import { fixture as batteryFixture } from '../../platforms/android/inventory/fixture.js';
import { fixture, wearFilesSection, wearPackagesSection } from './section.js';

// The doctor's wear lines from the outputs of its one shell per phone: the
// wear sections as the inventory runs them (the recordings of
// test/features/wear/fixtures/SOURCES.md), Samsung's figures from the
// battery output of the same shell, and the daemon's history where it has one.

const SETTINGS: WearSettings = {
  batteryMinHealthPercent: 80,
  batteryMaxCycles: 800,
  swellingHeldFullHours: 72,
  swellingWarmCelsius: 35,
  appIdLimit: 19990,
  storageMaxLifeUsedPercent: 90,
  noticeDays: 30,
  baselinePackages: ['io.appium.*'],
  tmpMaxMiB: 1024,
};
const NOW = Date.UTC(2026, 10, 27, 12);

/** What a phone without the source prints: no third-party package, no tradeinmode (before Android 16). */
const NONE: Record<string, string> = {
  wear_files: wearFilesSection({}),
  wear_packages: wearPackagesSection(''),
  wear_tradein: '/system/bin/sh: tradeinmode: inaccessible or not found\n',
};

/** A doctor output of the wear part: each section after its marker, as WEAR_COMMAND prints them. */
function output(sections: Record<string, string>): string {
  const markers = [...WEAR_COMMAND.matchAll(/^echo '(<<<DA:[0-9a-f]+:([a-z0-9_]+)>>>)'/gm)].map((m) => [m[2]!, m[1]!] as const);
  return markers.map(([name, marker]) => `${marker}\n${name === 'end' ? '' : (sections[name] ?? NONE[name])}`).join('');
}

describe('wearItems', () => {
  it('the Mi 6 battery at 65 % of design: a warning with what to do; its unread sources on a line of their own', () => {
    const wear = wearOfOutput(output({ wear_files: wearFilesSection({ supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } }) }));
    expect(splitSections(output({})).ended).toBe(true);
    expect(wearItems([{ serial: 'MI6', wear }], SETTINGS, new Map(), NOW)).toEqual([
      {
        status: 'warn',
        phone: true,
        finding: 'device MI6: wear battery_capacity now',
        advice: 'battery holds 65 % of its design capacity (limit 80 %): replace the battery or retire the phone, and check it for swelling',
      },
      { status: 'ok', phone: true, finding: 'device MI6: wear not told by storage life (absent), tradeinmode (absent): never judged worn on it' },
    ]);
  });

  it("the 2016 Samsung's own figures from dumpsys battery (ASOC 77 %, 1764 cycles): worn, where sysfs tells nothing", () => {
    const samsung = ADB_DOCTOR.battery(batteryFixture('battery', 'samsung-2016-battery-tistory-usb-charging.txt'));
    const wear = wearOfOutput(output({ wear_files: wearFilesSection({}) }));
    expect(wearItems([{ serial: 'S7', wear, battery: samsung }], SETTINGS, new Map(), NOW).map((i) => i.finding)).toEqual([
      'device S7: wear battery_capacity now',
      'device S7: wear battery_cycles now',
      'device S7: wear not told by power_supply (absent), storage life (absent), tradeinmode (absent): never judged worn on it',
    ]);
  });

  it('a healthy phone: one ok line with its figures and its leftovers', () => {
    const wear = wearOfOutput(
      output({
        wear_files: wearFilesSection({
          supplies: { bms: fixture('mi6-sagit_atl-bms-uevent.txt') },
          life: { emmc: '0x01 0x02' },
          tmp: { entries: 3, kib: 2048 },
        }),
        wear_packages: wearPackagesSection('package:io.appium.settings uid:10300\npackage:org.example.left uid:10401\n'),
      }),
    );
    expect(wearItems([{ serial: 'OK1', wear }], SETTINGS, new Map(), NOW)).toEqual([
      {
        status: 'ok',
        phone: true,
        finding:
          'device OK1: wear: battery 98 % of design, 69 cycles, flash 20 % of its life used, largest app id 10401, 1 leftover packages, 2 MiB in /data/local/tmp',
      },
      { status: 'ok', phone: true, finding: 'device OK1: wear not told by tradeinmode (absent): never judged worn on it' },
    ]);
  });

  it("forecasts from the daemon's history of the phone: one look alone cannot", () => {
    const today = dayOf(NOW);
    const history = Array.from({ length: 30 }, (_, i) => ({ day: today - 30 + i, health: 95 - Math.floor(i / 2) }));
    const wear = wearOfOutput(
      output({
        wear_files: wearFilesSection({ supplies: { bms: fixture('mi6-sagit_atl-bms-uevent.txt').replace('CHARGE_FULL=3272000', 'CHARGE_FULL=2733000') } }),
      }),
    );
    expect(wearItems([{ serial: 'FADE', wear }], SETTINGS, new Map(), NOW).filter((i) => i.status === 'warn')).toEqual([]);
    expect(wearItems([{ serial: 'FADE', wear }], SETTINGS, new Map([['FADE', history]]), NOW)[0]).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(/^device FADE: wear battery_capacity in about \d+ days$/),
    });
  });

  it('no line for a phone whose wear part did not run', () => {
    expect(wearItems([{ serial: 'X' }], SETTINGS, new Map(), NOW)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { dayOf } from '../../../src/features/wear/forecast.js';
import type { DaySample } from '../../../src/features/wear/history.js';
import type { WearSettings } from '../../../src/features/wear/judge.js';
import { ADB_DOCTOR } from '../../../src/platforms/android/doctor.js';
import { wearOfOutput, WEAR_COMMAND } from '../../../src/platforms/android/wear.js';
import { marker, splitSections } from '../../../src/platforms/android/inventory/script.js';
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
  const markers = [...WEAR_COMMAND.matchAll(/^m ([a-z0-9_]+);/gm)].map((m) => [m[1]!, marker(m[1]!)] as const);
  return markers.map(([name, marker]) => `${marker}\n${name === 'end' ? '' : (sections[name] ?? NONE[name])}`).join('');
}

/** 30 days of a battery fading half a point a day, to 81 % yesterday. */
function fadingHistory(): DaySample[] {
  const today = dayOf(NOW);
  return Array.from({ length: 30 }, (_, i) => ({ day: today - 30 + i, health: 95 - Math.floor(i / 2) }));
}

/** The healthy Mi 6's uevent with its full capacity edited to 82 % of design: healthy on one look. */
function fadingWear() {
  return wearOfOutput(
    output({
      wear_files: wearFilesSection({ supplies: { bms: fixture('mi6-sagit_atl-bms-uevent.txt').replace('CHARGE_FULL=3272000', 'CHARGE_FULL=2733000') } }),
    }),
  );
}

describe('wearItems', () => {
  it('the Mi 6 battery at 65 % of design: a warning with what to do, in plain words', () => {
    const wear = wearOfOutput(output({ wear_files: wearFilesSection({ supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } }) }));
    expect(splitSections(output({})).ended).toBe(true);
    expect(wearItems([{ serial: 'MI6', wear }], SETTINGS, new Map(), NOW)).toEqual([
      {
        id: 'phone.wear',
        phone: 'MI6',
        status: 'warn',
        finding: 'device MI6: worn: battery capacity now',
        advice: 'battery holds 65 % of its design capacity (limit 80 %): replace the battery or retire the phone, and check it for swelling',
      },
    ]);
  });

  it("the 2016 Samsung's own figures from dumpsys battery (ASOC 77 %, 1764 cycles): worn, where sysfs tells nothing", () => {
    const samsung = ADB_DOCTOR.battery(batteryFixture('battery', 'samsung-2016-battery-tistory-usb-charging.txt'));
    const wear = wearOfOutput(output({ wear_files: wearFilesSection({}) }));
    const [item, ...more] = wearItems([{ serial: 'S7', wear, battery: samsung }], SETTINGS, new Map(), NOW);
    expect(more).toEqual([]);
    expect(item!.finding).toBe('device S7: worn: battery capacity now, battery charge cycles now');
    expect(item!.advice).toMatch(/^battery holds 77 % of its design capacity .*; battery past 800 full charge cycles \(1764\)/);
  });

  it('a healthy phone: one ok line with its figures, its leftovers and what it does not tell', () => {
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
        id: 'phone.wear',
        phone: 'OK1',
        status: 'ok',
        finding:
          'device OK1: wear: battery 98 % of design, 69 cycles, flash 20 % of its life used, largest app id 10401, 1 leftover packages, 2 MiB in /data/local/tmp; not told: the trade-in report not on this phone',
      },
    ]);
  });

  it("forecasts from the daemon's history of the phone: one look alone cannot", () => {
    const wear = fadingWear();
    expect(wearItems([{ serial: 'FADE', udid: 'FADE', wear }], SETTINGS, new Map(), NOW).filter((i) => i.status === 'warn')).toEqual([]);
    expect(wearItems([{ serial: 'FADE', udid: 'FADE', wear }], SETTINGS, new Map([['FADE', fadingHistory()]]), NOW)[0]).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(/^device FADE: worn: battery capacity in about \d+ days$/),
    });
  });

  it('finds the history by the udid the phone gives, as the daemon keeps it, not by its adb serial (a network phone is HOST:PORT)', () => {
    const phone = { serial: '10.0.0.5:5555', udid: 'FADE0001', wear: fadingWear() };
    const warnings = (histories: Map<string, DaySample[]>) => wearItems([phone], SETTINGS, histories, NOW).filter((i) => i.status === 'warn');
    expect(warnings(new Map([['FADE0001', fadingHistory()]]))).toEqual([
      expect.objectContaining({ finding: expect.stringMatching(/^device 10\.0\.0\.5:5555: worn: battery capacity in about \d+ days$/) }),
    ]);
    expect(warnings(new Map([['10.0.0.5:5555', fadingHistory()]]))).toEqual([]);
    // A phone whose udid part did not arrive has no history to be judged with.
    expect(wearItems([{ ...phone, udid: undefined }], SETTINGS, new Map([['FADE0001', fadingHistory()]]), NOW).filter((i) => i.status === 'warn')).toEqual([]);
  });

  it('two phones giving one udid: neither is judged with its history, each warned why; one phone over USB and over TCP is one phone', () => {
    const histories = new Map([['FADE0001', fadingHistory()]]);
    const twins = [
      { serial: '10.0.0.5:5555', udid: 'FADE0001', wear: fadingWear() },
      { serial: '10.0.0.6:5555', udid: 'FADE0001', wear: fadingWear() },
    ];
    const items = wearItems(twins, SETTINGS, histories, NOW).filter((i) => i.status === 'warn');
    expect(items.map((i) => i.finding)).toEqual([
      "device 10.0.0.5:5555: no wear forecast: identity in conflict: 2 devices (adb serials 10.0.0.5:5555, 10.0.0.6:5555) give the udid FADE0001; its wear history is neither read nor written while they do, so that one phone cannot take another's, and it is judged on its last reading alone",
      "device 10.0.0.6:5555: no wear forecast: identity in conflict: 2 devices (adb serials 10.0.0.5:5555, 10.0.0.6:5555) give the udid FADE0001; its wear history is neither read nor written while they do, so that one phone cannot take another's, and it is judged on its last reading alone",
    ]);
    expect(items[0]!.advice).toMatch(/^tell the phones apart/);
    const oneOverBoth = [
      { serial: 'FADE0001', udid: 'FADE0001', usb: '1-1.4', wear: fadingWear() },
      { serial: '10.0.0.5:5555', udid: 'FADE0001', wear: fadingWear() },
    ];
    expect(
      wearItems(oneOverBoth, SETTINGS, histories, NOW)
        .filter((i) => i.status === 'warn')
        .map((i) => i.finding),
    ).toEqual([
      expect.stringMatching(/^device FADE0001: worn: battery capacity in about \d+ days$/),
      expect.stringMatching(/^device 10\.0\.0\.5:5555: worn: battery capacity in about \d+ days$/),
    ]);
  });

  it('unread, and why, for a phone whose wear part did not run or told no figure: never silently missing', () => {
    expect(wearItems([{ serial: 'X', unread: 'its shell was cut short after 15 s' }, { serial: 'Y' }], SETTINGS, new Map(), NOW)).toEqual([
      { id: 'phone.wear', phone: 'X', status: 'unread', finding: 'its shell was cut short after 15 s' },
      { id: 'phone.wear', phone: 'Y', status: 'unread', finding: 'its shell printed no wear part' },
    ]);
    const silent = wearOfOutput(output({}));
    expect(wearItems([{ serial: 'Z', wear: silent }], { ...SETTINGS, baselinePackages: [] }, new Map(), NOW)).toEqual([
      {
        id: 'phone.wear',
        phone: 'Z',
        status: 'unread',
        finding: 'no figure told (battery gauge not on this phone, storage life not on this phone, the trade-in report not on this phone)',
      },
    ]);
  });
});

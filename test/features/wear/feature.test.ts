import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { wearFeature } from '../../../src/features/wear/feature.js';
import type { WearSettings } from '../../../src/features/wear/judge.js';
import { WEAR_FILE } from '../../../src/features/wear/store.js';
import { registryTierStore } from '../../../src/platforms/android/inventory/tier-store.js';
import { ANDROID_WEAR } from '../../../src/platforms/android/wear.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import { featureContext } from '../../support/feature-bed.js';
import { fixture, wearFilesSection, wearPackagesSection, type FilesSection } from './section.js';

// Wear as the daemon drives it: the Android inventory's tier cache holds the
// wear sections of the connection (registryTierStore, as the prober keeps
// them), the source calls `answered` once per inventory on the virtual
// clock, and the feature keeps the phone's history, judges it and says what
// it found. The readings are the recorded Mi 6 uevents and the Pixel 7
// trade-in report (fixtures/SOURCES.md), edited where a test says so.

const SERIAL = 'R58M20ABCD';
const KEY = `android/${SERIAL}`;
const DAY = 86_400_000;
const SETTINGS: WearSettings = {
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

interface Answer {
  files?: FilesSection;
  packages?: string;
  tradeIn?: string;
  /** What the report's battery fields say this time. */
  battery?: DeviceInfo['battery'];
  detail?: DeviceInfo['batteryDetail'];
}

function bench(settings: Partial<WearSettings> = {}, stateDir?: string) {
  const registry = new DeviceRegistry();
  const time = new VirtualTime();
  const clock = time.clock();
  const log = captureLogger('info');
  const set = Object.fromEntries(Object.entries({ ...SETTINGS, ...settings }).map(([k, v]) => [`wear.${k}`, v]));
  const feature = wearFeature(featureContext({ registry, clock, logger: log.logger, set, wear: ANDROID_WEAR, ...(stateDir !== undefined && { stateDir }) }));
  const store = registryTierStore(registry);
  registry.sync('android', new Map([[SERIAL, 'device']]));
  const answer = (a: Answer, afterMs = DAY): void => {
    time.runUntil(time.now + afterMs);
    const sections = new Map<string, string>();
    if (a.files) sections.set('wear_files', wearFilesSection(a.files));
    if (a.packages !== undefined) sections.set('wear_packages', wearPackagesSection(a.packages));
    if (a.tradeIn !== undefined) sections.set('wear_tradein', a.tradeIn);
    store.set(SERIAL, { sections, slowReadAtMs: clock.monotonic(), slowStale: false });
    const info = { udid: SERIAL, serialNumber: SERIAL, state: 'device', status: 'AVAILABLE', battery: a.battery, batteryDetail: a.detail } as DeviceInfo;
    registry.readings.answered(KEY, info, clock.wall(), clock.monotonic());
    feature.answered!(registry.get(KEY)!);
  };
  const notes = () => feature.notes!(registry.get(KEY)!, []).filter((n): n is string => n !== undefined);
  const warnings = () =>
    log
      .lines()
      .filter((l) => l.level === 'warn')
      .map((l) => String(l.msg));
  const field = (key: string) =>
    feature.fields!()
      .find((f) => f.key === key)!
      .value({ info: {} as DeviceInfo, device: registry.get(KEY), serial: SERIAL, claim: {} as never, claims: [] });
  const metric = (name: string, label: string) =>
    Object.fromEntries((feature.metrics!().find((m) => m.name === name)?.samples ?? []).map((s) => [s.labels![label], s.value]));
  return { answer, notes, warnings, field, metric, feature, time, log };
}

/** A Mi 6 bms uevent with its full capacity edited to `full` µAh of its 3,350,000 design. */
const mi6 = (full: number, cycles = 151) =>
  fixture('mi6-c1_atl-bms-uevent.txt')
    .replace(/^POWER_SUPPLY_CHARGE_FULL=\d+$/m, `POWER_SUPPLY_CHARGE_FULL=${full}`)
    .replace(/^POWER_SUPPLY_CYCLE_COUNT=\d+$/m, `POWER_SUPPLY_CYCLE_COUNT=${cycles}`);

describe('wear of an Android phone', () => {
  it('a battery at 65 % of design (the recorded Mi 6) needs action now: a note on its message, one warning, its figures in the row', () => {
    const { answer, notes, warnings, field } = bench();
    answer({ files: { supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } } });
    answer({ files: { supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } } });
    expect(notes()).toEqual(['battery holds 65 % of its design capacity (limit 80 %): replace the battery or retire the phone, and check it for swelling']);
    expect(warnings()).toEqual([`device ${SERIAL}: ${notes()[0]}`]);
    expect([field('batteryHealthPercent'), field('batteryCycles')]).toEqual([65, 151]);
    expect(field('wear')).toMatchObject({ batterySource: 'sysfs', daysLeft: 0, reason: 'battery_capacity' });
  });

  it('a phone that tells nothing of its wear is never worn: no note, no finding, every source it could not read counted', () => {
    const { answer, notes, field, metric } = bench();
    answer({ files: {}, packages: '', tradeIn: '/system/bin/sh: tradeinmode: inaccessible or not found\n' });
    expect(notes()).toEqual([]);
    expect(field('wear')).toMatchObject({ unread: ['power_supply: absent', 'storage life: absent', 'tradeinmode: absent'] });
    expect(field('wear')).not.toHaveProperty('daysLeft');
    expect(metric('device_agent_wear_devices', 'reason')).toMatchObject({ battery_capacity: 0, battery_cycles: 0, app_ids: 0 });
    expect(metric('device_agent_wear_unread_devices', 'source')).toMatchObject({ power_supply: 1, tradeinmode: 1, packages: 0 });
  });

  it('a battery fading a point every two days is named about a month before it crosses 80 %, once', () => {
    const { answer, notes, warnings } = bench();
    let named: number | undefined;
    for (let day = 0; day < 40; day++) {
      const health = 100 - Math.floor(day / 2);
      answer({ files: { supplies: { bms: mi6(Math.round(33_500 * health)) } } });
      if (named === undefined && notes().length) named = day;
    }
    // Health crosses 80 % on day 41; named with 30 days' notice or a little less.
    expect(named).toBeGreaterThanOrEqual(8);
    expect(named).toBeLessThanOrEqual(14);
    expect(notes()[0]).toMatch(/^battery at \d+ % of its design capacity, losing 0\.\d+ a day: under 80 % in about \d+ days; plan to replace the battery$/);
    expect(warnings()).toHaveLength(1);
  });

  it("Samsung's own figures (dumpsys battery beside the report) count where sysfs says nothing", () => {
    const { answer, field, notes } = bench();
    answer({ files: {}, detail: { cycleCount: 850, healthPercent: 88 } });
    expect(field('batteryCycles')).toBe(850);
    expect(field('wear')).toMatchObject({ batterySource: 'samsung' });
    expect(notes()).toEqual([expect.stringMatching(/^battery past 800 full charge cycles \(850\)/)]);
  });

  it("Android 16's trade-in report: the Pixel 7's 99 % of storage life left and a healthy battery need nothing", () => {
    const { answer, notes, field } = bench();
    answer({ tradeIn: fixture('pixel7-tradeinmode-getstatus.json') });
    expect(notes()).toEqual([]);
    expect(field('wear')).toMatchObject({ batterySource: 'tradeinmode', storageLifeUsedPercent: 1 });
    expect(field('batteryCycles')).toBe(16);
  });

  it('app ids at the limit: installs are about to fail', () => {
    const { answer, notes } = bench();
    answer({ packages: 'package:org.example.app uid:10400\npackage:org.example.test uid:19995\n' });
    expect(notes()).toEqual([expect.stringMatching(/^app ids nearly used up: an installed package has app id 19995 \(limit 19990;/)]);
  });

  it('leftovers: third-party packages the baseline does not list, counted; none counted without a baseline', () => {
    const packages = 'package:io.appium.settings uid:10300\npackage:io.appium.uiautomator2.server uid:10301\npackage:org.example.leftover uid:10400\n';
    const withBaseline = bench({ baselinePackages: ['io.appium.*'] });
    withBaseline.answer({ packages });
    expect(withBaseline.field('wear')).toMatchObject({ leftoverPackages: 1, maxAppId: 10400 });
    const without = bench();
    without.answer({ packages });
    expect(without.field('wear')).not.toHaveProperty('leftoverPackages');
  });

  it('a battery held full and warm for more than 72 h of a week is at risk of swelling; a cool one is not', () => {
    const full = { percentage: '100', status: 'FULL', temperature: 38 };
    const warm = bench();
    for (let i = 0; i < 4 * 24 * 6; i++) warm.answer({ battery: full }, 10 * 60_000);
    expect(warm.notes()).toEqual([expect.stringMatching(/^battery held full at 35 °C or warmer for \d+ h of the last 7 days \(limit 72 h\)/)]);
    const cool = bench();
    for (let i = 0; i < 4 * 24 * 6; i++) cool.answer({ battery: { ...full, temperature: 30 } }, 10 * 60_000);
    expect(cool.notes()).toEqual([]);
  });

  it('/data/local/tmp over its limit is files piling up', () => {
    const { answer, notes } = bench({ tmpMaxMiB: 1 });
    answer({ files: { tmp: { entries: 30, kib: 4096 } } });
    expect(notes()).toEqual(['/data/local/tmp holds 4 MiB (limit 1 MiB): files piling up from tests fill the phone; clear what the tests left there']);
  });
});

describe('the history across restarts', () => {
  it('is saved by the daemon (start, stop) and read back by the next run, which forecasts from it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wear-'));
    const first = bench({}, dir);
    void first.feature.start!();
    for (let day = 0; day < 30; day++) first.answer({ files: { supplies: { bms: mi6(Math.round(33_500 * (100 - day / 2))) } } });
    void first.feature.stop!();
    expect(existsSync(join(dir, WEAR_FILE))).toBe(true);
    expect(Object.keys((JSON.parse(readFileSync(join(dir, WEAR_FILE), 'utf8')) as { phones: object }).phones)).toEqual([SERIAL]);
    // A new run, on the same days: one reading is enough for it to forecast from the saved ones.
    const second = bench({}, dir);
    second.time.runUntil(first.time.now);
    second.answer({ files: { supplies: { bms: mi6(Math.round(33_500 * 85)) } } });
    expect(second.notes()).toEqual([expect.stringMatching(/under 80 % in about \d+ days/)]);
  });

  it('a command that changes nothing (no start) reads the history but never writes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wear-'));
    const once = bench({}, dir);
    once.answer({ files: { supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') } } });
    void once.feature.stop!();
    expect(existsSync(join(dir, WEAR_FILE))).toBe(false);
  });
});

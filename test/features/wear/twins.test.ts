import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { wearFeature } from '../../../src/features/wear/feature.js';
import { dayOf } from '../../../src/features/wear/forecast.js';
import type { DaySample } from '../../../src/features/wear/history.js';
import { WEAR_FILE } from '../../../src/features/wear/store.js';
import { registryTierStore } from '../../../src/platforms/android/inventory/tier-store.js';
import { ANDROID_WEAR } from '../../../src/platforms/android/wear.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import { featureContext } from '../../support/feature-bed.js';
import { fixture, wearFilesSection } from './section.js';

// The wear history is kept by the udid a phone gives, which the phone
// chooses (docs/design/trust.md): two listed devices giving one udid (a
// clone, a vendor's fixed serial) must not write into one history, nor be
// forecast from one another's. The daemon's loop on the virtual clock: the
// tier cache holds each device's wear sections, `answered` once per
// inventory, the history saved by start/stop.

const DAY = 86_400_000;
const UDID = '0123456789ABCDEF';
const A = '10.0.0.5:5555';
const B = '10.0.0.6:5555';

/** The Mi 6's bms uevent with its full capacity at `percent` % of its 3,350,000 µAh design. */
const battery = (percent: number) =>
  wearFilesSection({
    supplies: {
      bms: fixture('mi6-c1_atl-bms-uevent.txt').replace(/^POWER_SUPPLY_CHARGE_FULL=\d+$/m, `POWER_SUPPLY_CHARGE_FULL=${33_500 * percent}`),
    },
  });

function bench() {
  const dir = mkdtempSync(join(tmpdir(), 'wear-twins-'));
  const time = new VirtualTime();
  const clock = time.clock();
  const today = dayOf(clock.wall());
  // The daemon's history of the udid: 30 days of a battery fading half a point a day, to 86 % yesterday.
  const history: DaySample[] = Array.from({ length: 30 }, (_, i) => ({ day: today - 30 + i, health: 100 - Math.floor(i / 2) }));
  writeFileSync(join(dir, WEAR_FILE), JSON.stringify({ phones: { [UDID]: history } }));
  const registry = new DeviceRegistry();
  const log = captureLogger('info');
  const feature = wearFeature(featureContext({ registry, clock, logger: log.logger, stateDir: dir, wear: ANDROID_WEAR }));
  const store = registryTierStore(registry);
  const list = (...serials: string[]) => registry.sync('android', new Map(serials.map((s) => [s, 'device'])));
  const answer = (serial: string, percent: number, udid = UDID): void => {
    store.set(serial, { sections: new Map([['wear_files', battery(percent)]]), slowReadAtMs: clock.monotonic(), slowStale: false });
    const info = { udid, serialNumber: udid, state: 'device', status: 'AVAILABLE' } as DeviceInfo;
    registry.readings.answered(`android/${serial}`, info, clock.wall(), clock.monotonic());
    feature.answered!(registry.get(`android/${serial}`)!);
  };
  const wear = (serial: string) =>
    feature.fields!()
      .find((f) => f.key === 'wear')!
      .value({ info: {} as DeviceInfo, device: registry.get(`android/${serial}`), serial, claim: {} as never, claims: [] }) as
      { daysLeft?: number; noForecast?: string } | undefined;
  const saved = (): DaySample[] => (JSON.parse(readFileSync(join(dir, WEAR_FILE), 'utf8')) as { phones: Record<string, DaySample[]> }).phones[UDID]!;
  const lines = (level: string) =>
    log
      .lines()
      .filter((l) => l.level === level)
      .map((l) => String(l.msg));
  return { feature, time, list, answer, wear, saved, lines, history };
}

describe('two devices giving one udid (issue 64)', () => {
  it('neither reads nor writes the history kept by it while both are listed; each is judged on its own reading, said in one line', () => {
    const { feature, time, list, answer, wear, saved, lines, history } = bench();
    void feature.start!();
    list(A, B);
    // A answers while B has not said who it is: the history is A's as far as anyone can tell.
    answer(A, 85);
    expect(wear(A)).toMatchObject({ daysLeft: expect.any(Number) });
    expect(wear(A)).not.toHaveProperty('noForecast');
    // B gives the same udid, with a battery at 60 %: from here on neither is linked to the history.
    answer(B, 60);
    for (const serial of [A, B]) {
      expect(wear(serial)).toMatchObject({
        noForecast: expect.stringMatching(
          /^identity in conflict: 2 devices \(adb serials 10\.0\.0\.5:5555, 10\.0\.0\.6:5555\) give the udid 0123456789ABCDEF; /,
        ),
      });
    }
    // Each on its own look: A (85 %) has no forecast now, B (60 %) needs action now, from its own reading.
    expect(wear(A)).not.toHaveProperty('daysLeft');
    expect(wear(B)).toMatchObject({ daysLeft: 0, reason: 'battery_capacity' });
    for (let day = 1; day <= 3; day++) {
      time.runUntil(time.now + DAY);
      answer(B, 60);
      answer(A, 85);
    }
    void feature.stop!();
    // What was saved: the history as it stood, and A's one reading of the day before B said who it was; never B's 60 %.
    expect(saved()).toEqual([...history, { day: history.at(-1)!.day + 1, health: 85, cycles: 151 }]);
    // Said once, at info, without the conflict's own words: the platform's warning says the conflict and what to do.
    expect(lines('warn').filter((l) => l.includes('no wear forecast'))).toEqual([]);
    expect(lines('info').filter((l) => l.includes('no wear forecast'))).toEqual([
      `device ${B}: no wear forecast while another listed device gives its udid ${UDID}: its wear history is neither read nor written meanwhile`,
    ]);
  });

  it('once the other is gone, the history is read and written again, said in one line', () => {
    const { feature, time, list, answer, wear, saved, lines } = bench();
    void feature.start!();
    list(A, B);
    answer(A, 85);
    answer(B, 60);
    list(A);
    time.runUntil(time.now + DAY);
    answer(A, 85);
    expect(wear(A)).not.toHaveProperty('noForecast');
    expect(wear(A)).toMatchObject({ daysLeft: expect.any(Number) });
    void feature.stop!();
    expect(saved().at(-1)).toEqual({ day: dayOf(Date.UTC(2026, 0, 5, 12)) + 1, health: 85, cycles: 151 });
    expect(lines('info').filter((l) => !l.includes('no wear forecast'))).toEqual([
      `device ${A}: no other listed device gives its udid ${UDID} now: its wear history is read and written again`,
    ]);
  });

  it("/metrics counts the phones listed now: B, gone with its battery due now, is remembered (so a replug says nothing again) but nobody's to act on", () => {
    const { feature, list, answer } = bench();
    const due = () =>
      feature.metrics!()
        .find((m) => m.name === 'device_agent_wear_devices')!
        .samples.find((x) => x.labels!.reason === 'battery_capacity')!.value;
    list(A, B);
    answer(A, 85);
    answer(B, 60);
    expect(due()).toBe(1);
    list(A);
    expect(due()).toBe(0);
  });

  it('one phone over USB and over TCP (adb tcpip) is one phone: both are forecast from its history', () => {
    const { list, answer, wear } = bench();
    // A serial that is not HOST:PORT is a USB device to the identity rule.
    list(UDID, A);
    answer(UDID, 85);
    answer(A, 85);
    expect(wear(UDID)).toMatchObject({ daysLeft: expect.any(Number) });
    expect(wear(A)).toMatchObject({ daysLeft: expect.any(Number) });
    expect(wear(A)).not.toHaveProperty('noForecast');
  });
});

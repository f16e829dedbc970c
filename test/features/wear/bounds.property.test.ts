import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { WEAR, wearFeature } from '../../../src/features/wear/feature.js';
import { dayOf } from '../../../src/features/wear/forecast.js';
import { KEPT_DAYS, withExposure, withFigures, type DaySample } from '../../../src/features/wear/history.js';
import { MAX_PHONES, type Histories } from '../../../src/features/wear/store.js';
import { registryTierStore } from '../../../src/platforms/android/inventory/tier-store.js';
import { ANDROID_WEAR } from '../../../src/platforms/android/wear.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { featureContext } from '../../support/feature-bed.js';
import { propertyRuns } from '../../support/property-runs.js';
import { fixture, wearFilesSection } from './section.js';

// What wear holds in memory stays bounded whatever phones come and go: the
// daemon's loop on the virtual clock (its ticks every 10 minutes, the wall
// clock stepping back and forth as NTP or a suspended VM make it), random
// plugs, unplugs and readings of phones that share udids or not. Each phone's
// state is forgotten once it has not been read for the history's horizon,
// each history once its newest day is past it, at most MAX_PHONES of each, and
// a history holds at most KEPT_DAYS samples.

const DAY = 86_400_000;
/** The daemon's tick (feature.ts SAVE_MS): what is past the horizon is forgotten within one. */
const TICK_MS = 10 * 60_000;
const HORIZON_MS = KEPT_DAYS * DAY;

const battery = (percent: number) =>
  wearFilesSection({
    supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt').replace(/^POWER_SUPPLY_CHARGE_FULL=\d+$/m, `POWER_SUPPLY_CHARGE_FULL=${33_500 * percent}`) },
  });

type Step =
  { kind: 'plug' | 'unplug'; phone: number } | { kind: 'read'; phone: number; health: number } | { kind: 'wait'; ms: number } | { kind: 'step'; ms: number };

const PHONES = 24;
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('plug' as const, 'unplug' as const), phone: fc.nat({ max: PHONES - 1 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('read' as const), phone: fc.nat({ max: PHONES - 1 }), health: fc.integer({ min: 50, max: 100 }) }) },
  // Monotonic time: up to two days (the ticks run through it).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 2 * DAY }) }) },
  // The wall clock steps, back or forth, by up to 300 days.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('step' as const), ms: fc.integer({ min: -300 * DAY, max: 300 * DAY }) }) },
);

describe('what wear holds in memory (property)', () => {
  it('stays bounded over random plugs, unplugs, readings and clock steps: gone phones forgotten after the horizon, histories capped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: PHONES }), fc.array(step, { minLength: 20, maxLength: 200, size: 'max' }), (udids, steps) => {
        const time = new VirtualTime();
        const clock = time.clock();
        const registry = new DeviceRegistry();
        const stored: Histories = new Map();
        const feature = wearFeature(featureContext({ registry, clock, wear: ANDROID_WEAR }), stored);
        const store = registryTierStore(registry);
        const states = registry.facet(WEAR);
        // Half the phones on USB, half over the network; phones share udids when there are fewer udids than phones.
        const serialOf = (phone: number) => (phone % 2 ? `10.0.0.${phone}:5555` : `USB${phone}`);
        const listed = new Set<string>();
        // Each phone's last reading, and the latest wall clock any tick since can have read.
        const readAt = new Map<string, { at: number; latest: number }>();
        void feature.start!();
        for (const s of steps) {
          if (s.kind === 'plug' || s.kind === 'unplug') {
            if (s.kind === 'plug') listed.add(serialOf(s.phone));
            else listed.delete(serialOf(s.phone));
            registry.sync('android', new Map([...listed].map((serial) => [serial, 'device'])));
          } else if (s.kind === 'read') {
            const serial = serialOf(s.phone);
            if (!listed.has(serial)) continue;
            const udid = `U${s.phone % udids}`;
            store.set(serial, { sections: new Map([['wear_files', battery(s.health)]]), slowReadAtMs: clock.monotonic(), slowStale: false });
            registry.readings.answered(
              `android/${serial}`,
              { udid, serialNumber: udid, state: 'device', status: 'AVAILABLE' } as DeviceInfo,
              clock.wall(),
              clock.monotonic(),
            );
            feature.answered!(registry.get(`android/${serial}`)!);
            readAt.set(`android/${serial}`, { at: clock.wall(), latest: clock.wall() });
          } else if (s.kind === 'wait') time.runUntil(time.now + s.ms);
          else if (s.kind === 'step') clock.stepWall(s.ms);
          // Within one tick, whatever the step was.
          time.runUntil(time.now + TICK_MS);
          const now = clock.wall();
          expect(stored.size).toBeLessThanOrEqual(MAX_PHONES);
          for (const history of stored.values()) {
            expect(history.length).toBeLessThanOrEqual(KEPT_DAYS);
            expect(history.at(-1)!.day).toBeGreaterThan(dayOf(now - TICK_MS) - KEPT_DAYS);
          }
          const kept = new Set(states.entries().map(([key]) => key));
          expect(kept.size).toBeLessThanOrEqual(MAX_PHONES);
          for (const [key, read] of readAt) {
            read.latest = Math.max(read.latest, now);
            // Forgotten once not read for the horizon (and a tick); never before the clock passed it.
            if (now - read.at > HORIZON_MS + TICK_MS) expect(kept.has(key), key).toBe(false);
            if (read.latest - read.at <= HORIZON_MS) expect(kept.has(key), key).toBe(true);
          }
        }
        void feature.stop!();
      }),
      propertyRuns(60),
    );
  });

  it('a history holds at most KEPT_DAYS samples, today always among them, whichever days a stepping clock gives', () => {
    // A reading a day, the clock now and then stepping back or forth by up to 400 days: days read ahead stay ahead.
    const move = fc.oneof({ weight: 20, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: -400, max: 400 }) });
    fc.assert(
      fc.property(fc.array(fc.tuple(move, fc.boolean()), { minLength: 1, maxLength: 800, size: 'max' }), (moves) => {
        let history: DaySample[] = [];
        let day = 20_000;
        for (const [by, exposure] of moves) {
          day += by;
          history = exposure ? withExposure(history, day, 10) : withFigures(history, day, { health: 90 });
          expect(history.length).toBeLessThanOrEqual(KEPT_DAYS);
          expect(history.some((s) => s.day === day)).toBe(true);
          expect(history.map((s) => s.day)).toEqual([...new Set(history.map((s) => s.day))].sort((a, b) => a - b));
        }
      }),
      propertyRuns(100),
    );
  });

  it('more phones than MAX_PHONES, each read once: the states and the histories of those read longest ago go', () => {
    const time = new VirtualTime();
    const clock = time.clock();
    const registry = new DeviceRegistry();
    const stored: Histories = new Map();
    const feature = wearFeature(featureContext({ registry, clock, wear: ANDROID_WEAR }), stored);
    const store = registryTierStore(registry);
    for (let i = 0; i < MAX_PHONES + 20; i++) {
      const serial = `P${i}`;
      registry.sync('android', new Map([[serial, 'device']]));
      store.set(serial, { sections: new Map([['wear_files', battery(90)]]), slowReadAtMs: clock.monotonic(), slowStale: false });
      registry.readings.answered(
        `android/${serial}`,
        { udid: serial, serialNumber: serial, state: 'device', status: 'AVAILABLE' } as DeviceInfo,
        clock.wall(),
        clock.monotonic(),
      );
      feature.answered!(registry.get(`android/${serial}`)!);
      // Three hours apart, all within the horizon: the cap alone bounds them (those read first are the oldest histories too).
      clock.stepWall(DAY / 8);
    }
    const kept = registry
      .facet(WEAR)
      .entries()
      .map(([key]) => key);
    expect(kept).toHaveLength(MAX_PHONES);
    expect(kept).not.toContain('android/P0');
    expect(kept).toContain(`android/P${MAX_PHONES + 19}`);
    expect(stored.size).toBe(MAX_PHONES);
    expect(stored.has('P0')).toBe(false);
    expect(stored.has(`P${MAX_PHONES + 19}`)).toBe(true);
  });
});

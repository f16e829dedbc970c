import fc from 'fast-check';
import { CHARGE_ENDS, CHARGE_PAUSES } from '../../../src/features/charge/charge.js';
import { describe, expect, it } from 'vitest';
import { chargeFeatureWith } from '../../../src/features/charge/feature.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';
import { PowerPaths } from '../../../src/features/charge/power-paths.js';
import { BookingGate } from '../../../src/booking/gate.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { loadSettings } from '../../../src/config/load.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import type { PortSwitch } from '../../../src/hub/uhubctl.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';

// The check of the power path (issue 43) over random sequences on virtual
// time, on the real parts: the registry, the booking gate, ChargeControl with
// its policy and its check. The test plays the hub, which cuts the port's
// power or only says it does, and the phone, whose inventories say whether
// it is on power (or say nothing of it), on USB (gone from adb while its
// port's power is off) or on Wi-Fi adb (listed throughout).

const TICK_MS = 2_000;
const MAX_PAUSE_MS = 120_000;
const UDID = 'udid-power-1';
const UNCUT = /^hub 1-1 port 2 does not cut power/;

const world = fc.record({ hubCuts: fc.boolean(), usb: fc.boolean() });
const step = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('inventory' as const),
      percent: fc.oneof({ arbitrary: fc.integer({ min: 20, max: 79 }), weight: 1 }, { arbitrary: fc.integer({ min: 80, max: 100 }), weight: 3 }),
    }),
    weight: 2,
  },
  // A phone that prints its charger lines now and then, or not: mostly it does.
  { arbitrary: fc.record({ kind: fc.constant('says-power' as const), on: fc.boolean() }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 6_000 }), fc.integer({ min: 0, max: 60_000 })) }),
    weight: 3,
  },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

interface Run {
  pauses: number;
  /** Pauses ended because the port kept the phone on power. */
  endedUncut: number;
  marked: boolean;
  /** Readings on power taken while the port was off, by the monotonic time of the off switch. */
  onPowerWhileOff: number[];
  offAt?: number;
  markedAt?: number;
  switchesAfterMark: string[];
  uncutLines: number;
  notAgainLines: number;
}

async function play(w: { hubCuts: boolean; usb: boolean }, steps: Step[]): Promise<Run> {
  // adb's serial: the phone's own on USB, its address on Wi-Fi adb.
  const SERIAL = w.usb ? 'R58POWER1' : '192.168.1.50:5555';
  const time = new VirtualTime();
  const clock = time.clock({ seed: 3 });
  const registry = new DeviceRegistry();
  const settings = loadSettings({
    env: {},
    overrides: new Map<string, unknown>([
      ['charge.ways', [`${UDID}=uhubctl`]],
      ['charge.maxPauseSeconds', MAX_PAUSE_MS / 1000],
    ]),
  });
  const state = { percent: 50, portOn: true, saysPower: true };
  const powerPaths = new PowerPaths();
  const run: Run = { pauses: 0, endedUncut: 0, marked: false, onPowerWhileOff: [], switchesAfterMark: [], uncutLines: 0, notAgainLines: 0 };
  const powered = () => state.portOn || !w.hubCuts;
  const listed = () => !w.usb || state.portOn || !w.hubCuts;
  const inventory = () => {
    if (!listed()) return;
    registry.sync('android', new Map([[SERIAL, 'device']]));
    if (w.usb) registry.setUsb('android', new Map([[SERIAL, { usb: '1-1.2' }]]));
    const info: DeviceInfo = {
      udid: UDID,
      serialNumber: SERIAL,
      state: 'device',
      status: 'AVAILABLE',
      platformName: 'Android',
      isAndroid: true,
      isIos: false,
      battery: { percentage: String(state.percent), ...(state.saysPower && { status: powered() ? 'CHARGING' : 'DISCHARGING' }) },
      ...(state.saysPower && { batteryDetail: { externalPower: powered() } }),
    };
    registry.readings.answered(`android/${SERIAL}`, info, clock.wall(), clock.monotonic());
    if (!state.portOn && state.saysPower && powered()) run.onPowerWhileOff.push(clock.wall());
  };
  const ports: PortSwitch = {
    switch: (hub, port, power) => {
      if (powerPaths.uncutAt('1-1', 2)) run.switchesAfterMark.push(power);
      state.portOn = power === 'on';
      if (power === 'off') {
        run.offAt = clock.wall();
        run.onPowerWhileOff = [];
      }
      if (!listed()) registry.sync('android', new Map());
      else inventory();
      return Promise.resolve(`${hub}:${port} ${power}`);
    },
  };
  const { logger, lines } = captureLogger();
  const stats = new AgentStats();
  const control = actionBed(
    (c) => chargeFeatureWith(c, { ports: { uhubctl: ports }, powerPaths: powerPaths, kept: undefined }),
    featureContext({ settings: { ...settings, hubPorts: [`${UDID}=1-1:2`] }, registry, stats, logger: logger, clock }),
    { gate: new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 4 }, clock), booking: { ask: () => Promise.resolve({ booked: false }) }, tickMs: TICK_MS },
  );
  inventory();
  control.start();

  const look = async () => {
    await control.settled();
    if (!run.marked && powerPaths.uncutAt('1-1', 2)) {
      run.marked = true;
      run.markedAt = clock.monotonic();
      // Evidence: the hub kept power, and the phone said so twice with the port off, the last 20 s after the switch or later.
      expect(w.hubCuts, 'a port that cuts power is never marked').toBe(false);
      expect(run.onPowerWhileOff.length).toBeGreaterThanOrEqual(2);
      expect(run.onPowerWhileOff.at(-1)! - run.offAt!).toBeGreaterThanOrEqual(20_000);
    }
  };

  let ticks = 0;
  for (const s of steps) {
    switch (s.kind) {
      case 'inventory':
        state.percent = s.percent;
        inventory();
        control.devicesChanged();
        break;
      case 'says-power':
        state.saysPower = s.on;
        break;
      case 'wait':
        for (let left = s.ms; left > 0; left -= TICK_MS) {
          time.advance(Math.min(TICK_MS, left));
          // The daemon's reports inventory a listed phone every few seconds.
          if (++ticks % 3 === 0) inventory();
          await look();
        }
        break;
    }
    await look();
  }
  await control.stop();
  run.pauses = stats.counter(CHARGE_PAUSES).get();
  run.endedUncut = stats.counter(CHARGE_ENDS).get('power_not_cut');
  run.uncutLines = lines().filter((l) => UNCUT.test(String(l.msg))).length;
  run.notAgainLines = lines().filter((l) => /but not on power .* after hub 1-1 port 2 was switched on again/.test(String(l.msg))).length;
  return run;
}

describe('the power path check over random sequences, on virtual time', () => {
  it('names a port only on evidence, at most once, and never switches a marked port off again', async () => {
    let marks = 0;
    await fc.assert(
      fc.asyncProperty(world, fc.array(step, { minLength: 6, maxLength: 60 }), async (w, steps) => {
        const run = await play(w, steps);
        expect(run.uncutLines, 'one line for the port, never one per report').toBeLessThanOrEqual(1);
        expect(run.uncutLines).toBe(run.marked ? 1 : 0);
        // Its pause ends at once (the port on again), and then the port is left alone, however long the phone stays full.
        expect(run.switchesAfterMark.filter((p) => p === 'off')).toEqual([]);
        expect(run.notAgainLines, 'said at most once per pause').toBeLessThanOrEqual(run.pauses);
        if (run.marked) marks++;
      }),
      { numRuns: 150 },
    );
    // The sequences do reach marks: a property over runs that never mark would say nothing.
    expect(marks).toBeGreaterThan(10);
  }, 120_000);

  it('marks the port of a hub that keeps power on plain sequences, and not one that cuts it (the property is not empty)', async () => {
    const full: Step[] = [
      { kind: 'inventory', percent: 95 },
      { kind: 'wait', ms: 60_000 },
      { kind: 'wait', ms: 60_000 },
    ];
    for (const usb of [true, false]) {
      const keeps = await play({ hubCuts: false, usb }, full);
      expect(keeps.marked).toBe(true);
      expect(keeps.pauses).toBe(1);
      expect(keeps.endedUncut, 'the pause ends once the port is found out, not at the longest pause').toBe(1);
      expect(keeps.switchesAfterMark).toEqual(['on']);
    }
    expect((await play({ hubCuts: true, usb: false }, full)).marked).toBe(false);
    expect((await play({ hubCuts: true, usb: true }, full)).marked).toBe(false);
    // A phone that prints nothing of its power is no evidence either way.
    expect((await play({ hubCuts: false, usb: false }, [{ kind: 'says-power', on: false }, ...full])).marked).toBe(false);
  });
});

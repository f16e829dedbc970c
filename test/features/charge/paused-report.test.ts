import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { ChargePauses, type ChargePause } from '../../../src/features/charge/pauses.js';
import { withChargePauses } from '../../../src/features/charge/paused-report.js';
import { kindsOf } from '../../../src/devices/presence.js';

const info = (udid: string, over: Partial<DeviceInfo> = {}): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'Android',
  isAndroid: true,
  isIos: false,
  ...over,
});
const at = Date.UTC(2026, 10, 23, 17, 0, 0);
const pause = (over: Partial<ChargePause> = {}): ChargePause => ({
  udid: 'P1',
  serial: 'S1',
  way: 'uhubctl',
  hub: '1-1.4',
  port: 3,
  percent: 81,
  since: 0,
  sinceWall: at,
  until: 600_000,
  untilWall: at + 600_000,
  // Its port off: the power-cut check starts when the off switch worked.
  cut: { offAtWall: at, onPower: 0, lastReadingAt: at },
  ...over,
});

/** A registry whose readings keep the phone's last inventory (given before its port went off: it is off adb now). */
function inventoried(): DeviceRegistry {
  const registry = new DeviceRegistry();
  registry.sync('android', new Map([['S1', 'device']]));
  const last = info('P1', { modelName: 'Pixel 8 Pro', message: 'an old message', batteryDetail: { externalPower: true } });
  registry.readings.answered('android/S1', last, 0, 0, undefined, 0);
  registry.sync('android', new Map());
  return registry;
}

/** The report's devices as the reporter has them: the present ones, then what the presence ledger carries, then the charge pass. */
function reported(present: DeviceInfo[], registry: DeviceRegistry, pauses: ChargePauses): DeviceInfo[] {
  const { carried } = registry.presence.report(present, 0, (d) => registry.readings.inventoryOf(d.udid, d.key));
  return withChargePauses([...present, ...carried.map((c) => c.info)], pauses, kindsOf(carried));
}

describe('charge pauses in the report', () => {
  it('reports a paused phone off adb with its last inventory, UNAVAILABLE, saying why and until when', () => {
    const registry = inventoried();
    const pauses = new ChargePauses(registry, 'android');
    pauses.set('S1', { failures: 0, pause: pause() });
    const out = reported([info('OTHER')], registry, pauses);
    expect(registry.presence.owed().map((e) => e.reason)).toEqual([{ kind: 'charge-paused', scope: 'android/S1' }]);
    expect(out.map((d) => d.udid)).toEqual(['OTHER', 'P1']);
    expect(out[1]).toEqual({
      ...info('P1', { modelName: 'Pixel 8 Pro' }),
      status: 'UNAVAILABLE',
      message:
        'charge paused to spare the battery: hub 1-1.4 port 3 switched off at 81 %; on again by 2026-11-23T17:10:00Z at the latest, or as soon as the cloud books it',
    });
  });

  it('marks a paused phone still on adb, and leaves one back after its pause to speak for itself', () => {
    const registry = inventoried();
    const pauses = new ChargePauses(registry, 'android');
    pauses.set('S1', { failures: 0, pause: pause() });
    expect(reported([info('P1', { message: 'battery hot' })], registry, pauses)[0]).toMatchObject({
      status: 'UNAVAILABLE',
      message: expect.stringMatching(/^battery hot; charge paused/) as string,
    });
    const ended = { why: 'booked' as const, at: 1, atWall: at + 60_000, switchedOn: true, waitUntil: 2 };
    pauses.set('S1', { failures: 0, pause: pause({ ended }) });
    expect(reported([info('P1')], registry, pauses)).toEqual([info('P1')]);
    // Not back yet: still UNAVAILABLE, never absent (absent would be UNPLUGGED).
    expect(reported([], registry, pauses)[0]!.message).toBe(
      'charge pause over (booked): hub 1-1.4 port 3 on again since 2026-11-23T17:01:00Z; waiting for the phone to come back on adb',
    );
    pauses.set('S1', { failures: 2, pause: pause({ ended: { ...ended, why: 'max_time', switchedOn: false } }) });
    expect(reported([], registry, pauses)[0]!.message).toBe('charge pause over (max time) but hub 1-1.4 port 3 is not on again yet; the agent keeps trying');
    // Forgotten (the phone back, or awaited long enough): no longer owed, so absent it goes UNPLUGGED.
    pauses.forget('S1');
    expect(reported([], registry, pauses)).toEqual([]);
    expect(registry.presence.owed()).toEqual([]);
  });

  it('says nothing of a pause whose off switch has not worked yet: the phone still on adb charges as before', () => {
    const registry = inventoried();
    const pauses = new ChargePauses(registry, 'android');
    pauses.set('S1', { failures: 0, pause: pause({ cut: undefined }) });
    expect(reported([info('P1', { message: 'battery hot' })], registry, pauses)).toEqual([info('P1', { message: 'battery hot' })]);
    // The switch worked: now it is news.
    pauses.set('S1', { failures: 0, pause: pause() });
    expect(reported([info('P1')], registry, pauses)[0]).toMatchObject({ status: 'UNAVAILABLE' });
  });

  it("a paused phone a failed source carries keeps the pause's note beside the failure's", () => {
    const registry = inventoried();
    const pauses = new ChargePauses(registry, 'android');
    pauses.set('S1', { failures: 0, pause: pause() });
    // adb did not answer: its phones go out with their last state, this one among them.
    registry.presence.owe(
      { kind: 'source-failed', scope: 'android' },
      [{ udid: 'P1', key: 'android/S1', notes: ['the agent could not read its android devices'] }],
      { while: 'adb fails' },
    );
    const out = reported([], registry, pauses);
    expect(out.map((d) => d.udid)).toEqual(['P1']);
    expect(out[0]).toMatchObject({
      status: 'UNAVAILABLE',
      message: expect.stringMatching(
        /^an old message; the agent could not read its android devices; charge paused to spare the battery: hub 1-1\.4 port 3/,
      ) as string,
    });
  });
});

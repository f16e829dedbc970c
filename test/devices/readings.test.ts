import { describe, expect, it } from 'vitest';
import { Readings } from '../../src/devices/readings.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { androidPhone } from '../support/devices.js';

describe('Readings', () => {
  it("applies an outcome to the asking connection's reading only, and a new connection keeps the udid and nothing else", () => {
    const readings = new Readings();
    readings.open('android/S1', 0);
    const asked = readings.asked('android/S1', 10)!;
    readings.answered('android/S1', androidPhone('U1'), 1_000, 20, 'cut short', asked);
    expect(readings.of('android/S1')).toMatchObject({ udid: 'U1', failures: 1, probing: false, askedAt: 10, inventoriedAt: 1_000 });
    readings.open('android/S1', 1);
    expect(readings.of('android/S1')).toEqual({ udid: 'U1', failures: 0, probing: false });
    expect(readings.failed('android/S1', 'late', 0, 30, asked)).toEqual({ recovered: false, newProblem: false });
    expect(readings.of('android/S1')?.failures).toBe(0);
    expect(readings.keysOf('U1')).toEqual(['android/S1']);
    readings.close('android/S1');
    expect(readings.of('android/S1')).toBeUndefined();
    expect(readings.keysOf('U1')).toEqual([]);
  });

  it("forgives the failures of one platform's devices only, and says a notice once until it changes", () => {
    const readings = new Readings();
    readings.open('android/S1', 0);
    readings.open('ios/U2', 0);
    readings.failed('android/S1', 'no answer', 0, 1);
    readings.failed('ios/U2', 'no answer', 0, 1);
    readings.forgive('android');
    expect([readings.of('android/S1')?.failures, readings.of('ios/U2')?.failures]).toEqual([0, 1]);
    expect([readings.noticed('ios/U2', 'not paired'), readings.noticed('ios/U2', 'not paired'), readings.noticed('ios/U2', 'locked')]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it("says 'answered' with the key, then 'outcome', and nothing for a connection that is gone", () => {
    const readings = new Readings();
    const heard: string[] = [];
    readings.on('answered', (key) => heard.push(`answered ${key}`));
    readings.on('outcome', () => heard.push('outcome'));
    readings.open('android/S1', 0);
    readings.answered('android/S1', androidPhone('U1'), 0, 0, undefined, 0);
    readings.answered('android/S1', androidPhone('U1'), 0, 0, undefined, 7);
    expect(heard).toEqual(['answered android/S1', 'outcome']);
  });
});

describe("the registry's snapshot of a device", () => {
  it('is the record and its reading as they stood when asked for: a later outcome changes the next snapshot, not this one', () => {
    const registry = new DeviceRegistry();
    registry.sync('android', new Map([['S1', 'device']]));
    const before = registry.get('android/S1')!;
    registry.readings.failed('android/S1', 'no answer', 0, 1);
    expect(before.failures).toBe(0);
    expect(registry.get('android/S1')).toMatchObject({ key: 'android/S1', state: 'device', connection: 0, failures: 1 });
    expect(registry.list()).toEqual([registry.get('android/S1')]);
  });
});

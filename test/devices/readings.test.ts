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

describe("the one store of a phone's last inventory", () => {
  const phone = (udid: string, model: string) => ({ ...androidPhone(udid), modelName: model });

  it("shows a connection only its own answer, keeps the record's last past its connections, and the key's last answer past the record", () => {
    const readings = new Readings();
    readings.open('android/S1', 0);
    readings.answered('android/S1', phone('U1', 'first'), 1_000, 10, undefined, 0);
    expect(readings.of('android/S1')).toMatchObject({ last: { modelName: 'first' }, inventoriedAt: 1_000 });
    readings.open('android/S1', 1);
    expect(readings.of('android/S1')?.last).toBeUndefined();
    expect(readings.earlier('android/S1')).toMatchObject({ info: { modelName: 'first' }, wallAt: 1_000, at: 10 });
    readings.close('android/S1');
    expect([readings.earlier('android/S1'), readings.lastAnswer('android/S1')?.info.modelName]).toEqual([undefined, 'first']);
    expect([readings.inventoryOf('U1', 'android/S1')?.modelName, readings.inventoryOf('U1')?.modelName, readings.inventoryOf('U2')]).toEqual([
      'first',
      'first',
      undefined,
    ]);
    // Listed again: a new record, which has answered nothing and has no earlier inventory of its own.
    readings.open('android/S1', 0);
    expect([readings.of('android/S1')?.last, readings.earlier('android/S1')]).toEqual([undefined, undefined]);
  });

  it("keeps a property dump until an answer, as the record's earlier inventory only while no answer of that phone came since", () => {
    const readings = new Readings();
    readings.open('android/S1', 0);
    expect(readings.said('android/S1', phone('U1', 'props'), 1_000, 10, 0)).toBe(true);
    expect([readings.early('android/S1')?.info.modelName, readings.of('android/S1')?.udid]).toEqual(['props', 'U1']);
    readings.open('android/S1', 1);
    expect([readings.early('android/S1'), readings.earlier('android/S1')?.props]).toEqual([undefined, true]);
    readings.answered('android/S1', phone('U1', 'answer'), 2_000, 20, undefined, 1);
    // This connection answered: a dump of it says nothing more.
    expect(readings.said('android/S1', phone('U1', 'late props'), 2_500, 25, 1)).toBe(false);
    readings.open('android/S1', 2);
    readings.said('android/S1', phone('U1', 'props again'), 3_000, 30, 2);
    expect([readings.early('android/S1')?.info.modelName, readings.earlier('android/S1')?.info.modelName]).toEqual(['props again', 'answer']);
    // Another phone's dump at the same serial is the record's word now.
    readings.open('android/S1', 3);
    readings.said('android/S1', phone('U9', 'other'), 4_000, 40, 3);
    expect(readings.earlier('android/S1')?.info.modelName).toBe('other');
    expect(readings.inventoryOf('U1', 'android/S1')?.modelName).toBe('answer');
    // An answer says more than any dump before it, whoever the dump named.
    readings.answered('android/S1', phone('U1', 'answer again'), 5_000, 50, undefined, 3);
    readings.open('android/S1', 4);
    expect(readings.earlier('android/S1')?.info.modelName).toBe('answer again');
  });

  it("drops the least recently said of the keys whose record went past a lab's worth, never a listed one", () => {
    const readings = new Readings();
    readings.open('android/LISTED', 0);
    readings.answered('android/LISTED', phone('L', 'listed'), 0, 0, undefined, 0);
    for (let i = 0; i < 600; i++) {
      readings.open(`android/G${i}`, 0);
      readings.answered(`android/G${i}`, phone(`G${i}`, 'gone'), i, i, undefined, 0);
      readings.close(`android/G${i}`);
    }
    expect(readings.lastAnswer('android/G87')).toBeUndefined();
    expect(readings.inventoryOf('G87')).toBeUndefined();
    expect(readings.lastAnswer('android/G88')?.info.udid).toBe('G88');
    expect(readings.lastAnswer('android/LISTED')?.info.udid).toBe('L');
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

import { describe, expect, it } from 'vitest';
import { Escalations } from '../../src/devices/escalations.js';
import { DeviceRegistry } from '../../src/devices/registry.js';

describe('Escalations', () => {
  it('keeps what recovery did to a serial, with its udid, until it is older than the window', () => {
    const e = new Escalations();
    e.note('R58M1', 'kick', 1_000, 'udid-1');
    e.note('R58M1', 'cycle', 2_000, undefined);
    expect(e.of('R58M1')).toEqual({ kicks: [1_000], cycles: [2_000], udid: 'udid-1' });
    e.prune(1_500);
    expect(e.of('R58M1')).toEqual({ kicks: [], cycles: [2_000], udid: 'udid-1' });
    e.prune(2_000);
    expect(e.of('R58M1')).toBeUndefined();
  });

  it('outlives the record: a phone that drops off the listing and comes back finds its kicks', () => {
    const registry = new DeviceRegistry();
    registry.sync('android', new Map([['10.0.0.7:5555', 'device']]));
    registry.escalations.note('10.0.0.7:5555', 'kick', 5_000, 'udid-7');
    registry.sync('android', new Map());
    expect(registry.list('android')).toEqual([]);
    registry.sync('android', new Map([['10.0.0.7:5555', 'device']]));
    expect(registry.escalations.of('10.0.0.7:5555')?.kicks).toEqual([5_000]);
  });
});

describe('DeviceRegistry.countHold', () => {
  it('counts a hold once per answer, again when the answer changes, and goes with the record', () => {
    const registry = new DeviceRegistry();
    registry.sync('android', new Map([['A1', 'device']]));
    const key = registry.list('android')[0]!.key;
    expect(registry.countHold(key, 'kick|booked')).toBe(true);
    expect(registry.countHold(key, 'kick|booked')).toBe(false);
    expect(registry.countHold(key, 'kick|unknown')).toBe(true);
    registry.sync('android', new Map());
    expect(registry.countHold(key, 'kick|unknown')).toBe(false);
  });
});

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

  it("keeps an offline run across a reconnect's absence, ends it when the phone answers, and forgets one unseen past the window", () => {
    const e = new Escalations();
    e.listed([{ serial: 'R58M1', state: 'offline', udid: 'udid-1' }], 1_000);
    e.reconnected('R58M1');
    // adb dropped it for the reconnect, then lists it offline again: the same run.
    e.listed([], 2_000);
    e.listed([{ serial: 'R58M1', state: 'offline' }], 3_000);
    e.reconnected('R58M1');
    expect(e.of('R58M1')).toEqual({ kicks: [], cycles: [], udid: 'udid-1', offline: { since: 1_000, reconnects: 2, seen: 3_000 } });
    // A cycle starts the count of reconnects again, not the run.
    e.note('R58M1', 'cycle', 4_000, undefined);
    expect(e.of('R58M1')?.offline).toEqual({ since: 1_000, reconnects: 0, seen: 3_000 });
    e.listed([{ serial: 'R58M1', state: 'connecting' }], 5_000);
    expect(e.of('R58M1')?.offline?.since).toBe(1_000);
    e.listed([{ serial: 'R58M1', state: 'device' }], 6_000);
    expect(e.of('R58M1')?.offline).toBeUndefined();
    e.listed([{ serial: 'X', state: 'offline' }], 7_000);
    e.prune(7_000);
    expect(e.of('X')).toBeUndefined();
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

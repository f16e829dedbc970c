import { describe, expect, it } from 'vitest';
import { Escalations, historyOf } from '../../../src/actions/recovery/escalations.js';
import { RecoveryNotebook } from '../../../src/actions/recovery/notes.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';

const escalations = (): Escalations => new Escalations(new DeviceRegistry(), 'android');

describe('Escalations', () => {
  it('keeps what recovery did to a serial, with its udid, until it is older than the window', () => {
    const e = escalations();
    e.note('R58M1', 'kick', 1_000, 'udid-1', 3);
    e.note('R58M1', 'cycle', 2_000, undefined, 6);
    expect(historyOf(e.of('R58M1')).escalation).toEqual({ kicks: [1_000], cycles: [2_000] });
    expect(e.of('R58M1')?.udid).toBe('udid-1');
    e.prune(1_500);
    expect(historyOf(e.of('R58M1')).escalation).toEqual({ kicks: [], cycles: [2_000] });
    e.prune(2_000);
    expect(e.of('R58M1')).toBeUndefined();
  });

  it('is the one history: the kicks and cycles with their failure counts, and apart for the limits', () => {
    const e = escalations();
    e.note('R58M1', 'kick', 1_000, undefined, 3);
    e.note('R58M1', 'cycle', 2_000, undefined, 6);
    expect(historyOf(e.of('R58M1')).kicks).toEqual([
      { at: 1_000, failures: 3 },
      { at: 2_000, failures: 6 },
    ]);
    expect(historyOf(undefined)).toEqual({ kicks: [] });
  });

  it("keeps an offline run across a reconnect's absence, ends it when the phone answers, and forgets one unseen past the window", () => {
    const e = escalations();
    e.listed([{ serial: 'R58M1', state: 'offline', udid: 'udid-1' }], 1_000);
    e.reconnected('R58M1');
    // adb dropped it for the reconnect, then lists it offline again: the same run.
    e.listed([], 2_000);
    e.listed([{ serial: 'R58M1', state: 'offline' }], 3_000);
    e.reconnected('R58M1');
    expect(e.of('R58M1')).toEqual({ taken: [], udid: 'udid-1', offline: { since: 1_000, reconnects: 2, seen: 3_000 } });
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
    const e = new Escalations(registry, 'android');
    registry.sync('android', new Map([['10.0.0.7:5555', 'device']]));
    e.note('10.0.0.7:5555', 'kick', 5_000, 'udid-7');
    registry.sync('android', new Map());
    expect(registry.list('android')).toEqual([]);
    registry.sync('android', new Map([['10.0.0.7:5555', 'device']]));
    expect(historyOf(new Escalations(registry, 'android').of('10.0.0.7:5555')).escalation?.kicks).toEqual([5_000]);
  });
});

describe('RecoveryNotebook.countHold', () => {
  it('counts a hold once per answer, again when the answer changes, and goes with the record', () => {
    const registry = new DeviceRegistry();
    const notes = new RecoveryNotebook(registry);
    registry.sync('android', new Map([['A1', 'device']]));
    const key = registry.list('android')[0]!.key;
    expect(notes.countHold(key, 'kick|booked')).toBe(true);
    expect(notes.countHold(key, 'kick|booked')).toBe(false);
    expect(notes.countHold(key, 'kick|unknown')).toBe(true);
    notes.setAttention(key, 'needs a person');
    registry.sync('android', new Map());
    expect(notes.countHold(key, 'kick|unknown')).toBe(false);
    registry.sync('android', new Map([['A1', 'device']]));
    expect(notes.of(key), 'a record that comes back is looked at afresh').toBeUndefined();
  });
});

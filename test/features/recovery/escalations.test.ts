import { describe, expect, it } from 'vitest';
import { Escalations, historyOf } from '../../../src/features/recovery/escalations.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { TRANSPORT_CUT } from '../../../src/devices/transport-cut.js';

const escalations = (): Escalations => new Escalations(new DeviceRegistry(), 'android');

describe('Escalations', () => {
  it('keeps the udid of a phone recovery acted on until its last kick or cycle is older than the window', () => {
    const e = escalations();
    e.acted('R58M1', 'kick', 1_000, 'udid-1');
    e.acted('R58M1', 'cycle', 2_000, undefined);
    expect(e.of('R58M1')).toEqual({ udid: 'udid-1', actedAt: 2_000 });
    e.prune(1_500);
    expect(e.of('R58M1')?.udid).toBe('udid-1');
    e.prune(2_000);
    expect(e.of('R58M1')).toBeUndefined();
  });

  it("keeps an offline run across a reconnect's absence, ends it when the phone answers, and forgets one unseen past the window", () => {
    const e = escalations();
    e.listed([{ serial: 'R58M1', state: 'offline', udid: 'udid-1' }], 1_000);
    e.reconnected('R58M1');
    // adb dropped it for the reconnect, then lists it offline again: the same run.
    e.listed([], 2_000);
    e.listed([{ serial: 'R58M1', state: 'offline' }], 3_000);
    e.reconnected('R58M1');
    expect(e.of('R58M1')).toEqual({ udid: 'udid-1', offline: { since: 1_000, reconnects: 2, seen: 3_000 } });
    // A cycle starts the count of reconnects again, not the run.
    e.acted('R58M1', 'cycle', 4_000, undefined);
    expect(e.of('R58M1')?.offline).toEqual({ since: 1_000, reconnects: 0, seen: 3_000 });
    e.listed([{ serial: 'R58M1', state: 'connecting' }], 5_000);
    expect(e.of('R58M1')?.offline?.since).toBe(1_000);
    e.listed([{ serial: 'R58M1', state: 'device' }], 6_000);
    expect(e.of('R58M1')?.offline).toBeUndefined();
    expect(e.of('R58M1')?.udid, 'kept while its cycle counts').toBe('udid-1');
    e.listed([{ serial: 'X', state: 'offline' }], 7_000);
    e.prune(7_000);
    expect(e.of('X')).toBeUndefined();
  });

  it('outlives the record: a kicked phone that drops off the listing and comes back is known by its udid, and its kick published', () => {
    const registry = new DeviceRegistry();
    const e = new Escalations(registry, 'android');
    registry.sync('android', new Map([['10.0.0.7:5555', 'device']]));
    e.acted('10.0.0.7:5555', 'kick', 5_000, 'udid-7');
    registry.sync('android', new Map());
    expect(registry.list('android')).toEqual([]);
    registry.sync('android', new Map([['10.0.0.7:5555', 'device']]));
    expect(new Escalations(registry, 'android').of('10.0.0.7:5555')?.udid).toBe('udid-7');
    expect(registry.facet(TRANSPORT_CUT).get('android/10.0.0.7:5555')).toEqual({ at: 5_000, what: 'recovery kicked its adb transport' });
  });
});

describe('historyOf', () => {
  it("is the one history as the policy reads it: the runner's kicks and cycles with their failure counts, merged by time, and apart for the limits", () => {
    const kicks = [
      { at: 1_000, failures: 3 },
      { at: 3_000, failures: 9 },
    ];
    const cycles = [{ at: 2_000, failures: 6 }];
    const offline = { since: 500, reconnects: 1, seen: 2_500 };
    expect(historyOf(kicks, cycles, offline)).toEqual({
      kicks: [
        { at: 1_000, failures: 3 },
        { at: 2_000, failures: 6 },
        { at: 3_000, failures: 9 },
      ],
      escalation: { kicks: [1_000, 3_000], cycles: [2_000], offline },
    });
    expect(historyOf([], [])).toEqual({ kicks: [] });
    expect(historyOf([], [], offline)).toEqual({ kicks: [], escalation: { kicks: [], cycles: [], offline } });
  });
});

import { describe, expect, it } from 'vitest';
import { PHONE_STATE } from '../../../src/devices/phone-state.js';
import { SharedParts } from '../../../src/util/shared-parts.js';
import { reportBed } from '../../agent/bed.js';

// A report composed while adb's list is not complete yet (just after it (re)connected) leaves out a phone it does not
// list, without calling it gone; the cloud then holds the phone offline (its node stopped reporting it: the double's
// store), so nobody books it. The chaos soak's seed 11 found the agent counting such a phone in service once adb listed
// it again: it took the cloud's word from the report before.

describe('a phone the last delivered report left out', () => {
  it('is out of service until a report carries it again, though an earlier report had it AVAILABLE', async () => {
    const shared = new SharedParts();
    const bed = reportBed({ schedule: '0 0 * * *', daemon: { booking: { ask: async () => ({ booked: false }) } }, shared });
    await bed.startDaemon();
    bed.loop.start();
    bed.source.list(['P1', 'P2'], 'device', true);
    await bed.advance(5_000, 250);
    const state = shared.get(PHONE_STATE)!;
    expect(state.now('P2')).toMatchObject({ state: 'in_service' });
    // adb restarts: its list is not complete for a while, and it lists P1 only.
    bed.source.emit('connected', 60_000);
    bed.source.list(['P1'], 'device', true);
    await bed.advance(2_000, 250);
    const left = bed.cloud.bodies.at(-1)!;
    expect(left.delivered).toBe(true);
    expect(left.body.devices.map((d) => d.udid)).toEqual(['P1']);
    // P2 is listed again; the report that carries it takes 4 s to reach the cloud.
    bed.cloud.delayMs = 4_000;
    bed.source.list(['P1', 'P2'], 'device', true);
    await bed.advance(2_000, 250);
    expect(state.now('P2')?.state).toBe('in_transition');
    await bed.advance(4_000, 250);
    expect(bed.cloud.bodies.at(-1)!.body.devices.map((d) => [d.udid, d.status])).toContainEqual(['P2', 'AVAILABLE']);
    expect(state.now('P2')).toMatchObject({ state: 'in_service' });
    await bed.stopDaemon();
  });
});

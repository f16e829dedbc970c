import { describe, expect, it } from 'vitest';
import { PHONE_STATE } from '../../../src/devices/phone-state.js';
import { SharedParts } from '../../../src/util/shared-parts.js';
import { reportBed } from '../../agent/bed.js';

// Out of service, on the cloud, from the first report that failed: from when it went out, not from when the agent knew
// (a cloud that takes 4 s to fail a report was not hearing the host for those 4 s).

describe('a report the cloud fails slowly', () => {
  it('takes its phones out on the cloud from when it went out', async () => {
    const shared = new SharedParts();
    const bed = reportBed({ schedule: '0 0 * * *', daemon: { booking: { ask: async () => ({ booked: false }) } }, shared });
    await bed.startDaemon();
    bed.loop.start();
    bed.source.list(['P1', 'P2'], 'device', true);
    await bed.advance(5_000, 250);
    const state = shared.get(PHONE_STATE)!;
    expect(state.now('P1')).toMatchObject({ state: 'in_service' });
    bed.cloud.delayMs = 4_000;
    bed.cloud.failing = true;
    void bed.loop.report('slow cloud');
    await bed.advance(250, 250);
    const sent = bed.cloud.attempts.at(-1)!;
    const wallOf = (monotonic: number) => bed.clock.wall() - (bed.clock.monotonic() - monotonic);
    await bed.advance(1_000, 250);
    // In flight, not failed yet: in service.
    expect(state.now('P1')).toMatchObject({ state: 'in_service' });
    await bed.advance(4_000, 250);
    expect(state.now('P1')).toEqual({ state: 'in_transition', layer: 'cloud', since: wallOf(sent) });
    await bed.stopDaemon();
  });
});

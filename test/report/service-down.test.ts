import { describe, expect, it } from 'vitest';
import { withServiceDown } from '../../src/report/service-down.js';
import { Timeline } from '../../src/devices/timeline.js';
import { VirtualTime } from '../support/virtual-time.js';
import { PHONE_STATE } from '../../src/devices/phone-state.js';
import { SharedParts } from '../../src/util/shared-parts.js';
import { phone, reportBed } from '../agent/bed.js';

// What the cloud is told of the phones while their platform's service does not answer (issue 71's fourth measurement:
// during an adb server outage every report sent them AVAILABLE while the in-service clock counted them out on adb).

describe('a phone whose service does not answer', () => {
  it('goes out UNAVAILABLE, saying since when and that the host is at fault; a phone of another platform is left as it is', () => {
    const time = new VirtualTime();
    const clock = time.clock();
    time.advance(5_000);
    const timeline = new Timeline();
    timeline.service('android', false, 2_000);
    const sources = [
      { platform: 'android' as const, label: 'adb server 127.0.0.1:5037' },
      { platform: 'ios' as const, label: 'usbmuxd' },
    ];
    const [android, iphone] = withServiceDown([phone('A1'), phone('I1', 'ios')], sources, timeline, clock);
    expect(android!.status).toBe('UNAVAILABLE');
    expect(android!.message).toContain(`adb server 127.0.0.1:5037 has not answered since ${new Date(clock.wall() - 3_000).toISOString().slice(11, 19)}Z`);
    expect(android!.message).toContain("a fault on this host, not the phone's");
    expect(iphone).toEqual(phone('I1', 'ios'));
    timeline.service('android', true, 6_000);
    expect(withServiceDown([phone('A1')], sources, timeline, clock)).toEqual([phone('A1')]);
  });

  it('on the report bed: the first report after the adb server stops says UNAVAILABLE, and the in-service clock counts them out on adb', async () => {
    const shared = new SharedParts();
    const bed = reportBed({ schedule: '* * * * *', daemon: { booking: { ask: async () => ({ booked: false }) } }, shared });
    await bed.startDaemon();
    bed.loop.start();
    bed.source.list(['P1', 'P2'], 'device', true);
    await bed.advance(5_000, 250);
    expect(bed.cloud.bodies.at(-1)!.body.devices.map((d) => d.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
    const before = bed.cloud.bodies.length;
    bed.source.alive = false;
    bed.source.fail = new Error('the adb server does not answer');
    // A report within the change debounce, not at the next schedule.
    await bed.advance(2_000, 250);
    const during = bed.cloud.bodies.slice(before);
    expect(during.length).toBeGreaterThan(0);
    expect(during[0]!.body.devices.map((d) => d.status)).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
    expect(shared.get(PHONE_STATE)!.now('P1')).toMatchObject({ state: 'in_transition', layer: 'adb' });
    bed.source.alive = true;
    bed.source.fail = undefined;
    await bed.advance(5_000, 250);
    expect(bed.cloud.bodies.at(-1)!.body.devices.map((d) => d.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
    await bed.stopDaemon();
  });
});

import { describe, expect, it } from 'vitest';
import { QUARANTINED } from '../../src/devices/verdicts.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import { reportBed } from './bed.js';

// A verdict that changes after a report has folded the verdicts (a quarantine its failed inventory completes after the
// report that inventory woke) wakes a report of its own; one a report's own passes say is in that report, its status and
// its words at once (src/devices/compose.ts), and wakes none (src/agent/agent.ts, as the bed wires it).

describe('a verdict as it changes', () => {
  it('outside a report: told within the change debounce; the report folding it wakes no other', async () => {
    const bed = reportBed({ schedule: '0 0 * * *', daemon: { booking: { ask: async () => ({ booked: false }) } } });
    await bed.startDaemon();
    bed.loop.start();
    bed.source.list(['P1', 'P2'], 'device', true);
    await bed.advance(10_000, 250);
    const before = bed.cloud.bodies.length;
    expect(bed.registry.timeline.unfolded).toBe(false);
    await bed.advance(10_000, 250);
    expect(bed.cloud.bodies.length).toBe(before);

    bed.registry.timeline.verdict('P1', QUARANTINED, { out: { state: 'quarantined', layer: 'phone' }, unavailable: true, appiumOff: true, words: 'held' });
    expect(bed.registry.timeline.unfolded).toBe(true);
    await bed.advance(1_000, 250);
    expect(bed.cloud.bodies.length).toBe(before + 1);
    const p1 = bed.cloud.bodies.at(-1)!.body.devices.find((d) => d.udid === 'P1')!;
    expect([p1.status, p1.support?.appiumDisabled]).toEqual(['UNAVAILABLE', true]);
    expect(bed.registry.timeline.unfolded).toBe(false);
    // Nothing more to tell: no other report.
    await bed.advance(10_000, 250);
    expect(bed.cloud.bodies.length).toBe(before + 1);

    bed.registry.timeline.verdict('P1', QUARANTINED, undefined);
    await bed.advance(1_000, 250);
    expect(bed.cloud.bodies.length).toBe(before + 2);
    expect(bed.cloud.bodies.at(-1)!.body.devices.find((d) => d.udid === 'P1')!.status).toBe('AVAILABLE');
    await bed.stopDaemon();
  });

  it("in a report's own pass: that report says it, status and words, and wakes no other", async () => {
    let say = false;
    const late: DeviceFeature = {
      name: 'late',
      annotate(devices) {
        if (say)
          bed.registry.timeline.verdict('P1', QUARANTINED, {
            out: { state: 'quarantined', layer: 'phone' },
            unavailable: true,
            appiumOff: true,
            words: 'held late',
          });
        return [...devices];
      },
    };
    const bed = reportBed({ schedule: '0 0 * * *', daemon: { booking: { ask: async () => ({ booked: false }) } }, more: [late] });
    await bed.startDaemon();
    bed.loop.start();
    bed.source.list(['P1'], 'device', true);
    await bed.advance(10_000, 250);
    const before = bed.cloud.bodies.length;
    say = true;
    void bed.loop.report('test');
    await bed.advance(250, 250);
    say = false;
    expect(bed.cloud.bodies.length).toBe(before + 1);
    const p1 = bed.cloud.bodies.at(-1)!.body.devices.find((d) => d.udid === 'P1')!;
    expect([p1.status, p1.support?.appiumDisabled, p1.message]).toEqual(['UNAVAILABLE', true, 'held late']);
    expect(bed.registry.timeline.unfolded).toBe(false);
    await bed.advance(10_000, 250);
    expect(bed.cloud.bodies.length).toBe(before + 1);
    await bed.stopDaemon();
  });
});

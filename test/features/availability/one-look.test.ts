import { describe, expect, it, vi } from 'vitest';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { availabilityFeature } from '../../../src/features/availability/feature.js';
import { deviceRows } from '../../../src/status/device-rows.js';
import type { Clock, Timers } from '../../../src/util/clock.js';
import { featureContext } from '../../support/feature-bed.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { phone } from '../../agent/bed.js';

// The rows of one view (a /metrics scrape, the page's data, `list --json`) read the phones' states at one look. A
// state asked per row looked at every phone again for each row, on a monotonic clock that moves between any two
// readings (performance.now): 200 phones cost 40,000 looks per scrape.

describe('the in-service states of one view', () => {
  it('are read at one look of every phone, not one look per row', async () => {
    const time = new VirtualTime();
    const virtual = time.clock();
    // As performance.now moves between two readings: a microsecond each.
    let ticks = 0;
    const clock: Clock & Timers = {
      monotonic: () => virtual.monotonic() + (ticks += 0.001),
      wall: () => virtual.wall(),
      random: virtual.random,
      setTimer: (fn, ms) => virtual.setTimer(fn, ms),
    };
    const registry = new DeviceRegistry();
    const f = availabilityFeature(featureContext({ clock, registry }));
    await f.start?.();
    const serials = Array.from({ length: 50 }, (_, i) => `P${i}`);
    registry.sync('android', new Map(serials.map((s) => [s, 'device'])));
    f.changed?.([]);
    for (const s of serials) {
      registry.readings.answered(`android/${s}`, phone(s), clock.wall(), clock.monotonic());
      f.answered?.(registry.get(`android/${s}`)!);
    }
    // The cloud stores them as the report told it: in service.
    const devices = serials.map((s) => ({ ...phone(s), status: 'AVAILABLE' as const }));
    f.annotate?.(devices, new Map());
    registry.timeline.delivered(devices, [], clock.monotonic());
    f.reported?.({ delivered: true, devices, failed: [] });
    time.advance(1_000);
    const looks = vi.spyOn(registry, 'list');
    const rows = deviceRows(
      serials.map((s) => phone(s)),
      registry,
      { features: [f] },
    );
    expect(rows.map((r) => (r.inService as { state: string } | undefined)?.state)).toEqual(serials.map(() => 'in_service'));
    expect(looks).toHaveBeenCalledTimes(1);
    await f.stop?.();
  });
});

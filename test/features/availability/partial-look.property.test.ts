import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { PERSON } from '../../../src/devices/verdicts.js';
import { availability } from '../../../src/features/availability/availability.js';
import { featureContext } from '../../support/feature-bed.js';
import { propertyRuns } from '../../support/property-runs.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { phone } from '../../agent/bed.js';

// At an inventory's end, or a verdict, the clock looks at that phone alone (availability.ts): at each of 200 phones'
// answers a look at every phone made a lab's first inventory quadratic. That must change nothing: beside a clock that
// looks at every phone at every inventory's end and verdict too, as it did, on the same random steps (plugs,
// inventories that answer, hang or are cut, recovery asking for a person, a port the long listing moves without a
// word, reports, the cloud and adb going and coming, inventories failing together), every phone, port, hub and the
// host have the same state, layer and seconds.

const PHONES = ['P0', 'P1', 'P2'];

type Step =
  | { kind: 'plug' | 'unplug' | 'offline' | 'answer' | 'hang' | 'cut' | 'person'; phone: number }
  | { kind: 'port'; phone: number; port: number }
  | { kind: 'report' | 'cloudDown' | 'adbDown' | 'adbUp' | 'starved' | 'fed' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('plug', 'unplug', 'offline', 'answer', 'hang', 'cut', 'person' as const), phone: fc.nat(PHONES.length - 1) }),
  fc.record({ kind: fc.constant('port' as const), phone: fc.nat(PHONES.length - 1), port: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constantFrom('report', 'cloudDown', 'adbDown', 'adbUp', 'starved', 'fed' as const) }),
);

/** One clock over its own registry; `everyPhone`: an inventory's end and a verdict are a change of everything, as they were. */
function bed(everyPhone: boolean) {
  const time = new VirtualTime();
  const clock = time.clock();
  const registry = new DeviceRegistry();
  const a = availability(featureContext({ clock, registry }));
  if (everyPhone) {
    registry.readings.on('outcome', () => a.hear());
    registry.timeline.on('fact', () => a.hear());
  }
  const states = new Map<string, string>();
  const ports = new Map<string, string>();
  const listing = () => new Map([...states].map(([p, s]) => [p, s]));
  const apply = (s: Step) => {
    const p = 'phone' in s ? PHONES[s.phone]! : '';
    const key = `android/${p}`;
    const listed = states.get(p) === 'device';
    switch (s.kind) {
      case 'plug':
      case 'offline':
      case 'unplug':
        if (s.kind === 'unplug') states.delete(p);
        else states.set(p, s.kind === 'plug' ? 'device' : 'offline');
        registry.sync('android', listing());
        a.hear();
        break;
      case 'answer':
        if (!listed) break;
        registry.readings.answered(key, phone(p), clock.wall(), clock.monotonic());
        a.answered(registry.get(key)!);
        break;
      case 'hang':
      case 'cut':
        if (listed) registry.readings.failed(key, 'no answer', clock.wall(), clock.monotonic(), undefined, false, s.kind === 'cut');
        break;
      case 'person':
        // Recovery asking for a person, or no longer: a verdict on this phone alone.
        registry.timeline.verdict(p, PERSON, registry.timeline.verdictBy(p, PERSON) ? undefined : { out: { state: 'needs_person', layer: 'phone' } });
        break;
      case 'port':
        // adb's long listing, which comes without an event of its own.
        ports.set(p, `1-1.${s.port}`);
        registry.setUsb('android', new Map([...ports].map(([serial, usb]) => [serial, { usb }])));
        break;
      case 'report': {
        const devices: DeviceInfo[] = [...states.keys()].map((u) => ({ ...phone(u), status: 'AVAILABLE' as const }));
        a.annotated(devices, new Map());
        registry.timeline.delivered(devices, [], clock.monotonic());
        a.hear();
        break;
      }
      case 'cloudDown':
        registry.timeline.notDelivered('connection refused', clock.monotonic());
        break;
      case 'adbDown':
      case 'adbUp':
        registry.timeline.service('android', s.kind === 'adbUp', clock.monotonic());
        break;
      case 'starved':
      case 'fed':
        // Inventories failing together: the host's.
        registry.timeline.starving(s.kind === 'starved' ? clock.monotonic() : undefined, clock.monotonic());
        break;
    }
  };
  const seen = () => ({
    phones: Object.fromEntries([...a.clock.phones].map(([udid, { track, tally }]) => [udid, { ...track, totals: tally.totals }])),
    ports: Object.fromEntries([...a.clock.ports].map(([port, { tally }]) => [port, tally.totals])),
    hubs: Object.fromEntries([...a.clock.hubs].map(([hub, tally]) => [hub, tally.totals])),
    host: a.clock.host.totals,
  });
  return { time, a, apply, seen };
}

describe('a look at the phone whose inventory ended, not at every phone', () => {
  it("leaves every phone, port, hub and the host as a look at every phone at every inventory's end does", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(step, fc.integer({ min: 0, max: 3_000 })), { minLength: 1, maxLength: 30 }), (steps) => {
        const one = bed(false);
        const every = bed(true);
        one.a.start();
        every.a.start();
        for (const [s, ms] of steps) {
          one.apply(s);
          every.apply(s);
          one.time.advance(ms);
          every.time.advance(ms);
          expect(one.seen()).toEqual(every.seen());
        }
        one.a.stop();
        every.a.stop();
      }),
      propertyRuns(600),
    );
  });

  it('looks at the one phone whose inventory ended, not at every phone', () => {
    const { time, a, apply } = bed(false);
    a.start();
    for (let i = 0; i < PHONES.length; i++) apply({ kind: 'plug', phone: i });
    for (let i = 0; i < PHONES.length; i++) apply({ kind: 'answer', phone: i });
    time.advance(1_000);
    const looks = vi.spyOn(a.clock, 'observe');
    apply({ kind: 'answer', phone: 1 });
    time.advance(1_000);
    expect(looks.mock.calls.map(([udid]) => udid)).toEqual(['P1']);
    a.stop();
  });
});

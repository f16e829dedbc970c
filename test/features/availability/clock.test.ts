import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LAYERS, PHONE_STATES, type Layer } from '../../../src/devices/phone-state.js';
import { InServiceClock } from '../../../src/features/availability/clock.js';
import { hubOfPort } from '../../../src/util/usb-path.js';
import { HOUR_MS, IN_SERVICE, Tally } from '../../../src/features/availability/tally.js';
import { AVAILABILITY_SECONDS, clockMetrics, dayStrip, HUB_SECONDS, PORT_SECONDS } from '../../../src/features/availability/views.js';

const EPOCH = Date.UTC(2026, 0, 5, 12);
const clockAt = () => new InServiceClock((mono) => EPOCH + mono);
const sum = (t: Tally) => Object.values(t.totals).reduce((a, b) => a + b, 0);

describe('the in-service clock', () => {
  it('credits every second of a phone once, to the phone, its port, its hub and the host, over random observations', () => {
    const verdict = fc.record({
      state: fc.constantFrom(...PHONE_STATES),
      layer: fc.constantFrom<Layer | 'carry'>(...LAYERS, 'carry'),
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('A', 'B'), verdict, fc.integer({ min: 0, max: 600_000 }), fc.option(fc.integer({ min: 0, max: 600_000 }))), {
          maxLength: 60,
        }),
        (steps) => {
          const c = clockAt();
          let at = 0;
          c.observe('A', 'A', { state: 'in_service' }, 0, { port: '1-1.1' });
          c.observe('B', 'B', { state: 'in_service' }, 0, { port: '1-1.2' });
          for (const [udid, v, dt, back] of steps) {
            at += dt;
            const state = v.state;
            c.observe(udid, udid, state === 'in_service' ? { state } : { state, layer: v.layer }, at, back === null ? {} : { backdate: at - back });
            // Evidence it worked, now and then.
            if (dt % 3 === 0) c.confirm(udid, at);
          }
          c.creditAll(at);
          const a = c.phones.get('A')!;
          const b = c.phones.get('B')!;
          // Never more than the time, and all of it but a phone's time in service since its last evidence.
          for (const s of [a, b]) expect(sum(s.tally) + c.uncredited(s, at)).toBeCloseTo(at / 1000, 6);
          expect(sum(c.host)).toBeCloseTo(sum(a.tally) + sum(b.tally), 6);
          expect(sum(c.hubs.get('1-1') ?? new Tally())).toBeCloseTo(sum(c.host), 6);
          expect(sum(c.ports.get('1-1.1')!.tally)).toBeCloseTo(sum(a.tally), 6);
        },
      ),
    );
  });

  it('credits a phone whose inventories fail up to each failure, and dates its return halfway from the latest failure to the answer', () => {
    const c = clockAt();
    c.observe('A', 'A', { state: 'in_service' }, 0);
    c.confirm('A', 60_000);
    // Found failing at 120 s, dated 90 s; its inventories fail again at 120 s and 180 s.
    c.observe('A', 'A', { state: 'auto_recovery', layer: 'phone', held: true }, 120_000, { backdate: 90_000 });
    c.failed('A', 120_000);
    c.creditAll(170_000);
    expect(c.phones.get('A')!.tally.totals).toEqual({ [IN_SERVICE]: 90, 'auto_recovery:phone': 30 });
    c.failed('A', 180_000);
    // It answers at 240 s: back in service from 210 s, credited once its answer vouches for it.
    c.observe('A', 'A', { state: 'in_service' }, 240_000, { backdate: 210_000 });
    c.confirm('A', 240_000);
    expect(c.phones.get('A')!.tally.totals).toEqual({ [IN_SERVICE]: 120, 'auto_recovery:phone': 120 });
    // Failing again when the agent stops: its time since the latest failure counts as failing.
    c.observe('A', 'A', { state: 'auto_recovery', layer: 'phone', held: true }, 300_000, { backdate: 270_000 });
    c.settle(330_000);
    expect(c.phones.get('A')!.tally.totals).toEqual({ [IN_SERVICE]: 150, 'auto_recovery:phone': 180 });
  });

  it('dates a failure found late halfway back, never before what it credited, and blames the time back on what took it out', () => {
    const c = clockAt();
    c.observe('A', 'A', { state: 'in_service' }, 0);
    c.confirm('A', 60_000);
    // Found failing at 120 s, its failure dated at 90 s: 90 s in service, 30 s out.
    c.observe('A', 'A', { state: 'auto_recovery', layer: 'phone' }, 120_000, { backdate: 90_000 });
    expect(c.phones.get('A')!.tally.totals).toEqual({ [IN_SERVICE]: 90, 'auto_recovery:phone': 30 });
    // A date before what is credited is not taken.
    c.observe('A', 'A', { state: 'in_transition', layer: 'carry' }, 180_000);
    c.observe('A', 'A', { state: 'in_service' }, 200_000);
    c.confirm('A', 300_000);
    c.observe('A', 'A', { state: 'needs_person', layer: 'readiness' }, 330_000, { backdate: 100_000 });
    const totals = c.phones.get('A')!.tally.totals;
    expect(totals[IN_SERVICE]).toBe(90 + 100);
    expect(totals['in_transition:phone']).toBe(20);
    expect(totals['needs_person:readiness']).toBe(30);
    expect(totals['auto_recovery:phone']).toBe(90);
  });

  it('splits seconds across the hours they span, and keeps two days of hours', () => {
    const t = new Tally();
    t.add(IN_SERVICE, EPOCH + HOUR_MS - 30_000, EPOCH + HOUR_MS + 90_000);
    expect(t.hours.map((h) => [h.start - EPOCH, h.by[IN_SERVICE]])).toEqual([
      [0, 30],
      [HOUR_MS, 90],
    ]);
    t.add(IN_SERVICE, EPOCH, EPOCH + 60 * HOUR_MS);
    expect(t.hours).toHaveLength(48);
    expect(t.within(EPOCH + 59 * HOUR_MS)).toEqual({ [IN_SERVICE]: 3600 });
  });

  it('names a port hub as the kernel does', () => {
    expect(hubOfPort('1-1.4.2')).toBe('1-1.4');
    expect(hubOfPort('3-2')).toBe('usb3');
  });
});

describe("the clock's counters", () => {
  it('carry the labels the rules select on: the host by state and layer, each port with its hub and in_service, each hub', () => {
    const c = clockAt();
    c.observe('A', 'A', { state: 'in_service' }, 0, { port: '1-1.1' });
    c.observe('A', 'A', { state: 'auto_recovery', layer: 'port' }, 60_000, { port: '1-1.1' });
    c.observe('A', 'A', { state: 'in_service' }, 90_000, { port: '1-1.1' });
    c.confirm('A', 120_000);
    const byName = new Map(clockMetrics(c).map((m) => [m.name, m.samples.map((s) => s.labels)]));
    expect(byName.get(AVAILABILITY_SECONDS)).toEqual(
      expect.arrayContaining([
        { state: 'in_service', layer: 'none' },
        { state: 'auto_recovery', layer: 'port' },
      ]),
    );
    expect(byName.get(PORT_SECONDS)).toEqual(
      expect.arrayContaining([
        { hub: '1-1', port: '1-1.1', in_service: 'true' },
        { hub: '1-1', port: '1-1.1', in_service: 'false' },
      ]),
    );
    expect(byName.get(HUB_SECONDS)).toEqual(
      expect.arrayContaining([
        { hub: '1-1', in_service: 'true' },
        { hub: '1-1', in_service: 'false' },
      ]),
    );
  });
});

describe("a phone's last day for the status page's strip", () => {
  it('its 24 hours oldest first, the current one last with its time in service not credited yet up to the minute now began, in whole minutes', () => {
    const c = clockAt();
    // 12:00 in service; out for its port from 13:30 to 13:50; in service again, last confirmed at 14:10.
    c.observe('A', 'A', { state: 'in_service' }, 0);
    c.observe('A', 'A', { state: 'in_transition', layer: 'port' }, 90 * 60_000);
    c.observe('A', 'A', { state: 'in_service' }, 110 * 60_000);
    c.confirm('A', 130 * 60_000);
    c.observe('A', 'A', { state: 'in_service' }, 130 * 60_000 + 20_000);
    const a = c.phones.get('A')!;
    const now = 145 * 60_000;
    const { from, hours } = dayStrip(c, a, EPOCH + now, now);
    expect(from).toBe(EPOCH + 2 * HOUR_MS - 23 * HOUR_MS);
    expect(hours).toHaveLength(24);
    expect(hours.slice(0, 21).every((h) => Object.keys(h).length === 0)).toBe(true);
    expect(hours.slice(21)).toEqual([{ [IN_SERVICE]: 60 }, { [IN_SERVICE]: 40, 'in_transition:port': 20 }, { [IN_SERVICE]: 25 }]);
    // A phone out for half a minute this hour: its minutes step with the others', at the minute, not half a minute off it.
    c.observe('B', 'B', { state: 'in_service' }, 120 * 60_000);
    c.observe('B', 'B', { state: 'in_transition', layer: 'port' }, 125 * 60_000);
    c.observe('B', 'B', { state: 'in_service' }, 125 * 60_000 + 30_000);
    c.confirm('B', 140 * 60_000);
    const b = c.phones.get('B')!;
    const last = (at: number) => dayStrip(c, b, EPOCH + at, at).hours[23];
    expect(last(now)).toEqual({ [IN_SERVICE]: 24 });
    expect(last(now + 40_000)).toEqual({ [IN_SERVICE]: 24 });
    expect(last(now + 60_000)).toEqual({ [IN_SERVICE]: 25 });
  });
});

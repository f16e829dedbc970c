import { describe, expect, it } from 'vitest';
import { BookingGate, cloudIdOf, type BookingGateSettings } from '../../src/booking/gate.js';
import { VirtualTime } from '../support/virtual-time.js';

// The gate alone. The booking rule it serves, as a property of recovery as the
// agent runs it: test/features/recovery/booking.property.test.ts.

const settings: BookingGateSettings = { cacheMs: 30_000, maxRequestsPerMinute: 4 };

describe('BookingGate', () => {
  it('asks once, waits for the answer, lets a device go only on a fresh "not booked"', () => {
    const time = new VirtualTime();
    const gate = new BookingGate(settings, time.clock());
    expect(gate.verdict('A')).toEqual({ kind: 'ask' });
    expect(gate.verdict('A')).toEqual({ kind: 'waiting' });
    gate.answered('A', { booked: false });
    expect(gate.verdict('A')).toEqual({ kind: 'free' });
    time.advance(29_999);
    expect(gate.verdict('A')).toEqual({ kind: 'free' });
    time.advance(1);
    // The answer is stale: asked again, and held until the new one comes.
    expect(gate.verdict('A')).toEqual({ kind: 'ask' });
    gate.answered('A', { booked: true });
    expect(gate.verdict('A')).toMatchObject({ kind: 'booked' });
  });

  it('a caller needing a younger answer than the cache keeps (maxAgeMs) gets one asked again, never an older "not booked"', () => {
    const time = new VirtualTime();
    const gate = new BookingGate(settings, time.clock());
    gate.verdict('A');
    gate.answered('A', { booked: false });
    time.advance(2_999);
    expect(gate.verdict('A', 3_000)).toEqual({ kind: 'free' });
    time.advance(1);
    // Still within the cache for others; too old for this caller: asked again, waited for, then as the new answer says.
    expect(gate.verdict('A')).toEqual({ kind: 'free' });
    expect(gate.verdict('A', 3_000)).toEqual({ kind: 'ask' });
    expect(gate.verdict('A', 3_000)).toEqual({ kind: 'waiting' });
    gate.answered('A', { booked: true });
    expect(gate.verdict('A', 3_000)).toMatchObject({ kind: 'booked' });
    // Out of budget, a stale "not booked" is no licence for it either.
    const spent = new BookingGate({ cacheMs: 30_000, maxRequestsPerMinute: 1 }, time.clock());
    spent.verdict('B');
    spent.answered('B', { booked: false });
    time.advance(5_000);
    expect(spent.verdict('B', 3_000)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/at most 1 times a minute/) });
  });

  it('holds a device the cloud could not answer for, and one without an id', () => {
    const gate = new BookingGate(settings, new VirtualTime().clock());
    gate.verdict('A');
    gate.answered('A', { unknown: 'HTTP 503 Service Unavailable' });
    expect(gate.verdict('A')).toMatchObject({ kind: 'unknown', reason: 'HTTP 503 Service Unavailable' });
    expect(gate.verdict(undefined)).toMatchObject({ kind: 'unknown' });
  });

  it('asks at most the configured number of times in any minute; a device past the budget is held', () => {
    const time = new VirtualTime();
    const gate = new BookingGate(settings, time.clock());
    for (const id of ['A', 'B', 'C', 'D']) expect(gate.verdict(id).kind).toBe('ask');
    expect(gate.verdict('E')).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/at most 4 times a minute/) });
    time.advance(59_999);
    expect(gate.verdict('E').kind).toBe('unknown');
    time.advance(1);
    expect(gate.verdict('E').kind).toBe('ask');
  });

  it('past the budget, a stale "not booked" is no longer a licence, a stale "booked" still names the reason', () => {
    const time = new VirtualTime();
    const gate = new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 2 }, time.clock());
    gate.verdict('A');
    gate.answered('A', { booked: false });
    gate.verdict('B');
    gate.answered('B', { booked: true });
    time.advance(10_000);
    expect(gate.verdict('A').kind).toBe('unknown');
    expect(gate.verdict('B').kind).toBe('booked');
  });

  it('gives the turn to the device asked about longest ago', () => {
    const time = new VirtualTime();
    const gate = new BookingGate(settings, time.clock());
    gate.verdict('A');
    gate.answered('A', { booked: false });
    time.advance(1_000);
    gate.verdict('B');
    gate.answered('B', { booked: false });
    expect(gate.byTurn(['B', 'A', 'C'], (d) => d)).toEqual(['C', 'A', 'B']);
  });

  it('shares the budget across actions: a device asked about again and again yields to one waiting its turn', () => {
    // Charge control looks at a full phone (A) first at every tick and asks whenever its answer is stale;
    // recovery's wedged phone (B) comes later. Without the turn, A would take every request and B none.
    const time = new VirtualTime();
    const gate = new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 4 }, time.clock());
    let firstAskOfB: number | undefined;
    const asksOfA: number[] = [];
    for (let t = 0; t <= 300_000; t += 2_000) {
      if (t > 0) time.advance(2_000);
      if (gate.verdict('A').kind === 'ask') {
        asksOfA.push(t);
        gate.answered('A', { booked: false });
      }
      if (t >= 30_000 && gate.verdict('B').kind === 'ask') {
        firstAskOfB ??= t;
        gate.answered('B', { unknown: 'the cloud did not answer' });
      }
    }
    expect(firstAskOfB).toBeDefined();
    expect(firstAskOfB!).toBeLessThanOrEqual(30_000 + 60_000);
    // A still gets its share: the budget is not left unused.
    expect(asksOfA.length).toBeGreaterThan(10);
  });

  it('knows a USB phone by its serial until it gives a udid, a TCP one only by its udid', () => {
    expect(cloudIdOf('R58M12AB', undefined)).toBe('R58M12AB');
    expect(cloudIdOf('R58M12AB', 'UDID1')).toBe('UDID1');
    expect(cloudIdOf('10.0.0.5:5555', undefined)).toBeUndefined();
  });
});

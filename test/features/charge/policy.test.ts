import { describe, expect, it } from 'vitest';
import type { ChargeEntry, ChargePause } from '../../../src/features/charge/pauses.js';
import type { BookingVerdict } from '../../../src/booking/gate.js';
import { decideWithVerdict } from '../../../src/actions/runner.js';
import { decideCharge as decideChargePure, type ChargeLook, type ChargeSettings } from '../../../src/features/charge/policy.js';

const s: ChargeSettings = { highPercent: 80, lowPercent: 40, maxPauseMs: 600_000, waitBackMs: 120_000 };
const free: BookingVerdict = { kind: 'free' };
const booked: BookingVerdict = { kind: 'booked', answer: 1 };

/** Through the runner's own way to decide (runner.ts, decideWithVerdict): the gate is asked only when the decision turns on it. */
function decideCharge(entry: Parameters<typeof decideChargePure>[0], l: Omit<TestLook, 'asked'>, settings: Parameters<typeof decideChargePure>[2]) {
  const { ask, ...fields } = l;
  return decideWithVerdict((verdict) => decideChargePure(entry, { ...fields, ...(verdict && { verdict }) }, settings), ask);
}

type TestLook = Omit<ChargeLook, 'verdict'> & { ask: () => BookingVerdict; asked: () => number };

function look(over: Partial<ChargeLook> & { v?: BookingVerdict } = {}): TestLook {
  let asked = 0;
  const { v = free, ...rest } = over;
  return {
    now: 1_000_000,
    back: false,
    busy: false,
    ask: () => {
      asked++;
      return v;
    },
    ...rest,
    asked: () => asked,
  };
}

const pause = (over: Partial<ChargePause> = {}): ChargePause => ({
  udid: 'U',
  serial: 'S',
  way: 'uhubctl',
  hub: '1-1',
  port: 2,
  percent: 80,
  since: 900_000,
  sinceWall: 0,
  until: 1_500_000,
  untilWall: 600_000,
  ...over,
});
const paused = (over: Partial<ChargePause> = {}, entry: Partial<ChargeEntry> = {}): ChargeEntry => ({ failures: 0, pause: pause(over), ...entry });

describe('the charge policy', () => {
  it('pauses at the high mark only on the cloud\'s "not booked", and asks only then', () => {
    const below = look({ percent: 79 });
    expect(decideCharge(undefined, below, s)).toEqual({ kind: 'none' });
    expect(below.asked()).toBe(0);
    expect(decideCharge(undefined, look({ percent: 80 }), s)).toEqual({ kind: 'pause' });
    for (const v of [booked, { kind: 'unknown', reason: 'down', answer: 2 }, { kind: 'ask' }, { kind: 'waiting' }] as BookingVerdict[])
      expect(decideCharge(undefined, look({ percent: 95, v }), s), v.kind).toEqual({ kind: 'none' });
    // No reading, no pause.
    expect(decideCharge(undefined, look(), s)).toEqual({ kind: 'none' });
  });

  it('waits out the backoff of a failed switch before pausing again', () => {
    expect(decideCharge({ failures: 1, retryAt: 1_000_001 }, look({ percent: 90 }), s)).toEqual({ kind: 'none' });
    expect(decideCharge({ failures: 1, retryAt: 1_000_000 }, look({ percent: 90 }), s)).toEqual({ kind: 'pause' });
  });

  it('ends a pause at the longest time whatever the cloud says, at a booking, or at the low mark', () => {
    expect(decideCharge(paused({ until: 1_000_000 }), look({ v: { kind: 'unknown', reason: 'down' } }), s)).toEqual({ kind: 'resume', why: 'max_time' });
    expect(decideCharge(paused(), look({ v: booked }), s)).toEqual({ kind: 'resume', why: 'booked' });
    expect(decideCharge(paused(), look({ percent: 40 }), s)).toEqual({ kind: 'resume', why: 'low_mark' });
    // A cloud that cannot say keeps the pause: the longest time bounds it.
    expect(decideCharge(paused(), look({ v: { kind: 'unknown', reason: 'down', answer: 3 } }), s)).toEqual({ kind: 'none' });
    expect(decideCharge(paused(), look({ percent: 41 }), s)).toEqual({ kind: 'none' });
  });

  it('decides nothing while a switch is in flight', () => {
    expect(decideCharge(paused({ until: 0 }), look({ v: booked, busy: true }), s)).toEqual({ kind: 'none' });
    const ended = { why: 'booked' as const, at: 1, atWall: 1, switchedOn: false, waitUntil: Infinity };
    expect(decideCharge(paused({ ended }), look({ busy: true }), s)).toEqual({ kind: 'none' });
    expect(decideCharge(undefined, look({ percent: 90, busy: true }), s)).toEqual({ kind: 'none' });
  });

  it('switches on again after a failed try once its backoff is over, then waits for the phone', () => {
    const ended = { why: 'booked' as const, at: 1, atWall: 1, switchedOn: false, waitUntil: Infinity };
    expect(decideCharge(paused({ ended }, { failures: 1, retryAt: 1_000_001 }), look(), s)).toEqual({ kind: 'none' });
    expect(decideCharge(paused({ ended }, { failures: 1, retryAt: 999_999 }), look(), s)).toEqual({ kind: 'switch-on' });
    const on = { ...ended, switchedOn: true, waitUntil: 1_000_001 };
    expect(decideCharge(paused({ ended: on }), look(), s)).toEqual({ kind: 'none' });
    expect(decideCharge(paused({ ended: on }), look({ back: true }), s)).toEqual({ kind: 'forget' });
    expect(decideCharge(paused({ ended: { ...on, waitUntil: 1_000_000 } }), look(), s)).toEqual({ kind: 'forget' });
  });
});

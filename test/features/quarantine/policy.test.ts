import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideWithVerdict } from '../../../src/actions/runner.js';
import type { BookingVerdict } from '../../../src/booking/gate.js';
import { LAYERS, type Layer } from '../../../src/devices/phone-state.js';
import type { QuarantineEntry } from '../../../src/devices/quarantine.js';
import {
  counted,
  decideQuarantine,
  holdFor,
  layerOf,
  MAX_PER_HOUR,
  type Failure,
  type QuarantineLook,
  type QuarantineSettings,
} from '../../../src/features/quarantine/policy.js';

const MIN = 60_000;
const S: QuarantineSettings = { failures: 3, windowMs: 10 * MIN, holdMs: 20 * MIN, maxHoldMs: 480 * MIN, forgetMs: 24 * 60 * MIN };
const NOW = Date.UTC(2026, 0, 5, 12);
const free: BookingVerdict = { kind: 'free' };
const fail = (minutesAgo: number, layer: Layer = 'phone'): Failure => ({
  at: NOW - minutesAgo * MIN,
  kind: 'inventory',
  text: `failed ${minutesAgo} min ago`,
  layer,
});
const look = (over: Partial<QuarantineLook> = {}): QuarantineLook => ({
  now: NOW,
  failures: [],
  conflicted: false,
  gone: false,
  starts: [],
  passes: false,
  ...over,
});
/** As the runner decides: first without the gate's verdict, again with it when the decision turns on it. */
const decide = (l: QuarantineLook, verdict: BookingVerdict = free) =>
  decideWithVerdict(
    (v) => decideQuarantine({ ...l, ...(v && { verdict: v }) }, S),
    () => verdict,
  );

describe('when a phone is taken out of service', () => {
  it('3 failures of its own within 10 minutes take it out for 20 minutes, the evidence the last 3; 2, or 3 spread over more, do not', () => {
    const out = decide(look({ failures: [fail(9), fail(5), fail(1)] }));
    expect(out).toMatchObject({ kind: 'quarantine', until: NOW + 20 * MIN, layer: 'phone', reason: '3 failures in 10 min' });
    expect(decide(look({ failures: [fail(5), fail(1)] })).kind).toBe('none');
    expect(decide(look({ failures: [fail(11), fail(5), fail(1)] })).kind).toBe('none');
  });

  it('due while the cloud is asked: its failures counted as of when it became due, so that the host rationing its questions lets no evidence age out', () => {
    const failures = [fail(14), fail(10), fail(6)];
    expect(decide(look({ failures })).kind).toBe('none');
    expect(decide(look({ failures, dueAt: NOW - 5 * MIN }))).toMatchObject({ kind: 'quarantine', until: NOW + 20 * MIN, evidence: failures });
  });

  it('never counts a failure blamed on what fails every phone behind it: its hub, its controller, the host, the adb server', () => {
    for (const wide of ['hub', 'controller', 'host', 'adb'] as const)
      expect(decide(look({ failures: [fail(3, wide), fail(2, wide), fail(1, wide)] })).kind).toBe('none');
    expect(counted([fail(3, 'port'), fail(2, 'readiness'), fail(1, 'cloud'), fail(1, 'hub')], NOW, S).map((f) => f.layer)).toEqual([
      'port',
      'readiness',
      'cloud',
    ]);
  });

  it('the cloud booked, or unable to say: held, never taken out; asking: nothing yet', () => {
    const due = look({ failures: [fail(3), fail(2), fail(1)] });
    expect(decide(due, { kind: 'booked', answer: 1 })).toEqual({ kind: 'held', reason: 'the cloud says it is booked' });
    expect(decide(due, { kind: 'unknown', reason: 'a 503' })).toMatchObject({ kind: 'held' });
    expect(decide(due, { kind: 'ask' }).kind).toBe('asking');
    expect(decide(due, { kind: 'waiting' }).kind).toBe('asking');
  });

  it('a phone already gone from under any session is taken out without asking the cloud', () => {
    let asked = false;
    const out = decideWithVerdict(
      (v) => decideQuarantine({ ...look({ failures: [fail(3), fail(2), fail(1)], gone: true }), ...(v && { verdict: v }) }, S),
      () => ((asked = true), { kind: 'booked', answer: 1 }),
    );
    expect(out.kind).toBe('quarantine');
    expect(asked).toBe(false);
  });

  it('never for a phone whose identity another device claims; never past its budget of quarantines in an hour', () => {
    expect(decide(look({ failures: [fail(3), fail(2), fail(1)], conflicted: true })).kind).toBe('refused');
    const starts = Array.from({ length: MAX_PER_HOUR }, (_, i) => i);
    expect(decide(look({ failures: [fail(3), fail(2), fail(1)], starts })).kind).toBe('none');
  });

  it('the failures before it was last put back (its own quarantine, or an operator) are not counted again', () => {
    const entry: QuarantineEntry = { serial: 'S1', starts: [NOW - 30 * MIN], released: { at: NOW - 4 * MIN, by: 'operator' } };
    expect(decide(look({ entry, failures: [fail(8), fail(6), fail(5), fail(1)] })).kind).toBe('none');
    expect(decide(look({ entry, failures: [fail(8), fail(3), fail(2), fail(1)] })).kind).toBe('quarantine');
  });

  it('0 failures in the settings never quarantines', () => {
    expect(decideQuarantine(look({ failures: [fail(3), fail(2), fail(1)], verdict: free }), { ...S, failures: 0 }).kind).toBe('none');
  });
});

describe('how long, and when it comes back', () => {
  it('is held twice as long for each quarantine within the forget horizon, up to the ceiling; after the horizon, the base again', () => {
    expect(holdFor([], NOW, S)).toBe(20 * MIN);
    expect(holdFor([NOW - 60 * MIN], NOW, S)).toBe(40 * MIN);
    expect(holdFor([NOW - 3 * 60 * MIN, NOW - 60 * MIN], NOW, S)).toBe(80 * MIN);
    expect(
      holdFor(
        Array.from({ length: 10 }, (_, i) => NOW - (i + 1) * MIN),
        NOW,
        S,
      ),
    ).toBe(480 * MIN);
    expect(holdFor([NOW - 25 * 60 * MIN], NOW, S)).toBe(20 * MIN);
  });

  it('over random histories: never shorter than the base, never longer than the ceiling, and never shorter for a phone quarantined more often', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 48 * 60 }), { maxLength: 40 }), fc.integer({ min: 1, max: 48 * 60 }), (ago, more) => {
        const starts = ago.map((m) => NOW - m * MIN);
        const hold = holdFor(starts, NOW, S);
        expect(hold).toBeGreaterThanOrEqual(S.holdMs);
        expect(hold).toBeLessThanOrEqual(S.maxHoldMs);
        expect(holdFor([...starts, NOW - more * MIN], NOW, S)).toBeGreaterThanOrEqual(hold);
      }),
    );
  });

  it('comes back once its time is over and it passes a check, not before, and not without the check', () => {
    const entry: QuarantineEntry = { serial: 'S1', since: NOW - 20 * MIN, until: NOW, starts: [NOW - 20 * MIN] };
    expect(decide(look({ entry, passes: true })).kind).toBe('release');
    expect(decide(look({ entry, passes: false })).kind).toBe('none');
    expect(decide(look({ now: NOW - 1, entry, passes: true })).kind).toBe('none');
  });

  it('blames a quarantine on the layer most of its failures are, the latest on a tie', () => {
    expect(layerOf([fail(3, 'port'), fail(2, 'phone'), fail(1, 'port')])).toBe('port');
    expect(layerOf([fail(3, 'cloud'), fail(2, 'phone')])).toBe('phone');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LAYERS), { minLength: 1, maxLength: 9 }), (layers) => {
        expect(layers).toContain(layerOf(layers.map((l, i) => fail(i, l))));
      }),
    );
  });
});

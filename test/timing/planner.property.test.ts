import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../support/property-runs.js';
import type { PlannerOptions } from '../../src/timing/planner.js';
import { DEVICES, simulate, type Answer, type Observation, type SimEvent, type SimInput } from './planner-sim.js';

// The planner's guarantees, checked on long random sequences of device
// events, schedule ticks (some lost), cloud answers of every class,
// failedDevices naming sent and unsent devices, and wedged phones.

const options: PlannerOptions = { periodMs: 60_000, jitterMs: 5_000, debounceMs: 500 };
const MAX_REPORT_MS = 400;
const HORIZON = 30 * 60_000;

const device = fc.integer({ min: 0, max: DEVICES - 1 });
const dt = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 120_000 }));
const event: fc.Arbitrary<SimEvent> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ dt, kind: fc.constantFrom('plug', 'unplug', 'offline', 'wedge', 'unwedge'), device }) },
  { weight: 1, arbitrary: fc.record({ dt, kind: fc.constantFrom('source-resumed', 'requested') }) },
);
const okAnswer: fc.Arbitrary<Answer> = fc.record({
  kind: fc.constant('ok' as const),
  failSent: fc.array(fc.nat(10), { maxLength: 3 }),
  failUnsent: fc.array(fc.nat(4), { maxLength: 2 }),
});
const transient: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'transient' as const }) },
  // 429 or 503 with Retry-After: seconds, sometimes longer than the period.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transient' as const), retryAfterMs: fc.integer({ min: 0, max: 150_000 }) }) },
);
const anyAnswer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 3, arbitrary: okAnswer },
  { weight: 2, arbitrary: transient },
  { weight: 1, arbitrary: fc.constant({ kind: 'rejected' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'auth' as const }) },
);
const input = (answer: fc.Arbitrary<Answer>): fc.Arbitrary<SimInput> =>
  fc.record({
    events: fc.array(event, { minLength: 1, maxLength: 300, size: 'max' }),
    answers: fc.array(answer, { minLength: 1, maxLength: 40, size: 'max' }),
    durations: fc.array(fc.integer({ min: 0, max: MAX_REPORT_MS }), { minLength: 1, maxLength: 10 }),
    lostTicks: fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
    seed: fc.integer(),
  });
/** Long outages: the cloud mostly fails, now and then it takes a report. */
const outageAnswer: fc.Arbitrary<Answer> = fc.oneof({ weight: 12, arbitrary: transient }, { weight: 1, arbitrary: okAnswer });

// One seed for all of the file's properties (CI's, property-seed.ts, or one
// drawn now): the seven over the same arbitrary draw the same cases, so each
// case is simulated once and its observation read by all seven, which each
// simulated their own before. Each still checks as many cases. A property
// only reads an observation. Bounded: shrinking a failure draws thousands.
const runs = { ...propertyRuns(300), seed: fc.readConfigureGlobal().seed ?? Math.floor(Math.random() * 2 ** 31) };
const simulated = new Map<string, Observation>();
function observe(i: SimInput): Observation {
  const key = JSON.stringify(i);
  let obs = simulated.get(key);
  if (!obs) {
    if (simulated.size >= 1_000) simulated.clear();
    simulated.set(key, (obs = simulate(i, options, HORIZON)));
  }
  return obs;
}
// Each property checks its bound over every report of a run and calls expect() on a breach only:
// vitest's expect() updates its assertion state on every call, which was a sixth of the file's time.

describe('report planner: invariants on random event sequences', () => {
  it('keeps its own bookkeeping sound: no plan in the past, memory bounded by the devices', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const obs = observe(i);
        expect(obs.violation).toBeUndefined();
        expect(obs.maxFootprint).toBeLessThanOrEqual(4 * DEVICES);
      }),
      runs,
    );
  });

  it('starts and ends at most 12 reports but the schedule tick in any 60 s, whatever their triggers and whatever happens', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const { starts } = observe(i);
        const gapped = (k: number) => !starts[k]!.triggers.includes('schedule');
        const others = starts.filter((_, k) => gapped(k));
        // The PUT goes between a report's start and its end: both are bounded.
        const ends = others.flatMap((s) => (s.endAt === undefined ? [] : [s.endAt]));
        for (const e of ends) {
          const n = ends.filter((x) => x >= e && x < e + 60_000).length;
          if (n > 12) expect(n, `reports ending in the 60 s from ${e}`).toBeLessThanOrEqual(12);
        }
        for (const o of others) {
          const n = others.filter((s) => s.at >= o.at && s.at < o.at + 60_000).length;
          if (n > 12) expect(n, `reports starting in the 60 s from ${o.at}`).toBeLessThanOrEqual(12);
        }
      }),
      runs,
    );
  });

  it('never resends a report the cloud rejected (4xx) or refused for its credentials', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const obs = observe(i);
        for (const k of obs.refused) {
          const next = obs.starts[k + 1];
          if (next?.triggers.includes('resend')) expect(next.triggers, `the report after ${obs.starts[k]!.at}`).not.toContain('resend');
        }
      }),
      runs,
    );
  });

  // A transient failure in force at some time of the `within` ms after a change: the change waits for the resend.
  // (The last report ended before the change failed, or one ending in the window did: a resend that got through ends it.)
  const failingWithin = (obs: ReturnType<typeof simulate>, at: number, within: number) => {
    const ended = obs.starts.filter((s) => s.endAt !== undefined && s.endAt <= at + within);
    const inForce = ended.filter((s) => s.endAt! <= at).at(-1);
    return [inForce, ...ended.filter((s) => s.endAt! > at)].some((s) => s?.answer?.kind === 'transient');
  };

  it("reports a device change on a quiet host (no report in flight or ended in the 5 s before it) within 2 s, unless the cloud is failing (then with the backoff's next attempt)", () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const obs = observe(i);
        for (const c of obs.changes) {
          if (c.at + 2_000 > obs.endAt || failingWithin(obs, c.at, 2_000)) continue;
          if (obs.starts.some((s) => s.at <= c.at && (s.endAt === undefined || s.endAt > c.at - 5_000))) continue;
          const covered = obs.starts.slice(c.startsBefore).some((s) => s.at >= c.at && s.at <= c.at + 2_000);
          if (!covered) expect(covered, `change of ${c.serial} at ${c.at}`).toBe(true);
        }
      }),
      runs,
    );
  });

  it('reports every device change within 6 s (a token of the budget comes back), or once the report in flight ends when that is later, unless the cloud is failing', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const obs = observe(i);
        const within = 6_000 + MAX_REPORT_MS;
        for (const c of obs.changes) {
          if (c.at + within > obs.endAt || failingWithin(obs, c.at, within)) continue;
          const inFlight = obs.starts.slice(0, c.startsBefore).find((s) => s.endAt === undefined || s.endAt > c.at);
          const bound = Math.max(c.at + 6_000, inFlight?.endAt ?? -Infinity);
          const covered = obs.starts.slice(c.startsBefore).some((s) => s.at >= c.at && s.at <= bound);
          if (!covered) expect(covered, `change of ${c.serial} at ${c.at}`).toBe(true);
        }
      }),
      runs,
    );
  });

  it('while the cloud accepts, a report starts at least once per period (plus jitter and slack), even with lost schedule ticks', () => {
    fc.assert(
      fc.property(input(okAnswer), (i) => {
        const obs = observe(i);
        const bound = options.periodMs + options.jitterMs + 10_000 + MAX_REPORT_MS;
        const times = [...obs.starts.map((s) => s.at), obs.endAt];
        expect(times[0]).toBe(0);
        for (let k = 1; k < times.length; k++)
          if (times[k]! - times[k - 1]! > bound) expect(times[k]! - times[k - 1]!, `the gap after ${times[k - 1]}`).toBeLessThanOrEqual(bound);
      }),
      runs,
    );
  });

  it('asks a device whose probe failed no sooner than 10 s later, unless adb saw it change or tracking resumed', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const obs = observe(i);
        for (const p of obs.probes) {
          if (p.ok) continue;
          const next = obs.probes.find((q) => q.serial === p.serial && q.startedAt > p.startedAt);
          if (!next) continue;
          const changed =
            obs.changes.some((c) => c.serial === p.serial && c.at >= p.startedAt && c.at <= next.startedAt) ||
            obs.resumes.some((at) => at >= p.startedAt && at <= next.startedAt);
          if (!changed && next.startedAt - p.startedAt < 10_000)
            expect(next.startedAt - p.startedAt, `${p.serial} asked at ${p.startedAt}`).toBeGreaterThanOrEqual(10_000);
        }
      }),
      runs,
    );
  });

  it('while the cloud fails, at most 3 attempts in any 60 s: one backoff spans every report', () => {
    fc.assert(
      fc.property(input(outageAnswer), (i) => {
        const { starts } = observe(i);
        // Runs of attempts that all failed with a failure that may pass.
        for (let k = 0; k < starts.length; k++) {
          let n = 0;
          for (let m = k; m < starts.length && starts[m]!.at < starts[k]!.at + 60_000; m++) {
            if (starts[m]!.answer?.kind !== 'transient') break;
            n++;
          }
          if (n > 3) expect(n, `attempts from ${starts[k]!.at}`).toBeLessThanOrEqual(3);
        }
      }),
      runs,
    );
  });

  it('starts nothing before the time a Retry-After named', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const { starts } = observe(i);
        for (let k = 0; k + 1 < starts.length; k++) {
          const answer = starts[k]!.answer;
          if (answer?.kind !== 'transient' || answer.retryAfterMs === undefined) continue;
          if (starts[k + 1]!.at < starts[k]!.endAt! + answer.retryAfterMs)
            expect(starts[k + 1]!.at, `the report after ${starts[k]!.at}`).toBeGreaterThanOrEqual(starts[k]!.endAt! + answer.retryAfterMs);
        }
      }),
      runs,
    );
  });

  it('after a failure, the next attempt comes within two periods, or the Retry-After, its jitter and a period', () => {
    fc.assert(
      fc.property(input(anyAnswer), (i) => {
        const obs = observe(i);
        const { starts } = obs;
        for (let k = 0; k < starts.length; k++) {
          const s = starts[k]!;
          if (s.answer === undefined || s.answer.kind === 'ok') continue;
          const ra = s.answer.retryAfterMs ?? 0;
          // A Retry-After, its jitter, then the first scheduled report after them (the watchdog's, when that tick is lost).
          const afterRetryAfter = ra + Math.min(ra, options.periodMs) / 2 + options.periodMs + options.jitterMs + 10_000;
          const bound = s.endAt! + Math.max(2 * options.periodMs, afterRetryAfter) + MAX_REPORT_MS;
          const next = starts[k + 1]?.at ?? obs.endAt;
          if (bound < obs.endAt && next > bound) expect(next, `the attempt after ${s.at}`).toBeLessThanOrEqual(bound);
        }
      }),
      runs,
    );
  });
});

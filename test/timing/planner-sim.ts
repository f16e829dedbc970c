// A discrete-event driver for the report planner: a fake monotonic clock,
// schedule ticks (some lost, as after a clock jump or a suspend), device
// events, reports that take time, cloud answers of every class and probes
// that fail. It records what an outside observer would see, so the property
// tests can state the planner's guarantees over it.

import type { Failure, PlannerOptions, Trigger } from '../../src/timing/planner.js';
import { PlannerBed } from './planner-bed.js';
import type { FailedDevice } from '../../src/cloud/types.js';
import { seededRandom } from '../support/virtual-time.js';

export type SimEvent =
  { dt: number; kind: 'plug' | 'unplug' | 'offline' | 'wedge' | 'unwedge'; device: number } | { dt: number; kind: 'source-resumed' | 'requested' };

export type Answer = { kind: 'ok'; failSent: number[]; failUnsent: number[] } | { kind: Failure; retryAfterMs?: number };

export interface SimInput {
  events: SimEvent[];
  answers: Answer[];
  /** Durations of successive reports (ms), cycled. */
  durations: number[];
  /** Schedule ticks lost, cycled (true: lost). */
  lostTicks: boolean[];
  /** Seed of the planner's jitter. */
  seed?: number;
}

export interface Start {
  at: number;
  triggers: Trigger[];
  refresh: Set<string>;
  hold: Set<string>;
  /** udids of the ready devices when it started. */
  present: string[];
  /** When it ended, and how the cloud answered (unset while in flight at the end). */
  endAt?: number;
  answer?: Answer;
}

export interface Observation {
  starts: Start[];
  /** Device events, with the time they happened. */
  changes: Array<{ at: number; serial: string; startsBefore: number }>;
  /** Indices (in starts) of the reports the cloud rejected or refused for credentials. */
  refused: number[];
  /** Times adb tracking resumed (probe failures before it say nothing about the devices). */
  resumes: number[];
  /** Fresh probes: the report start that asked, and whether the device answered. */
  probes: Array<{ serial: string; startedAt: number; ok: boolean }>;
  /** Planner invariants checked after every step; the first violation, if any. */
  violation: string | undefined;
  maxFootprint: number;
  endAt: number;
}

export const DEVICES = 8;
export const serialOf = (i: number): string => `SER${i}`;

export function simulate(input: SimInput, options: PlannerOptions, horizonMs: number): Observation {
  const planner = new PlannerBed({ random: seededRandom(input.seed ?? 1), ...options });
  const bed = planner;
  const state = new Map<string, string>();
  const wedged = new Set<string>();
  const obs: Observation = { starts: [], changes: [], refused: [], resumes: [], probes: [], violation: undefined, maxFootprint: 0, endAt: 0 };
  let t = 0;
  let flight: { endAt: number; start: Start } | undefined;
  let nextTick = options.periodMs;
  let tickNo = 0;
  let reportNo = 0;
  let lastDeliveredSent: Set<string> | undefined;

  const check = (where: string): void => {
    if (obs.violation) return;
    const next = planner.nextAt(t);
    if (next !== undefined && next < t) obs.violation = `${where}: nextAt ${next} before now ${t}`;
    const footprint = planner.failed.current().length;
    const present = state.size;
    if (bed.registry.size !== present) obs.violation = `${where}: the registry holds ${bed.registry.size} devices, adb lists ${present}`;
    if (lastDeliveredSent) {
      for (const f of planner.failed.current()) {
        if (!lastDeliveredSent.has(f.udid)) obs.violation = `${where}: failed entry ${f.udid} kept although the last delivered report did not carry it`;
      }
    }
    obs.maxFootprint = Math.max(obs.maxFootprint, footprint);
  };

  const step = (until: number): void => {
    for (;;) {
      const candidates: number[] = [nextTick];
      if (flight) candidates.push(flight.endAt);
      else {
        const at = planner.nextAt(t);
        if (at !== undefined) candidates.push(at);
      }
      const at = Math.min(...candidates);
      if (at > until) return;
      t = Math.max(t, at);
      if (flight && flight.endAt <= t) {
        finish(flight.start);
        flight = undefined;
      } else if (nextTick <= t) {
        if (!input.lostTicks[tickNo++ % Math.max(1, input.lostTicks.length)]) planner.scheduleTick(t);
        nextTick += options.periodMs;
      } else {
        const plan = bed.take(t);
        if (plan) {
          const present = [...state].filter(([, s]) => s === 'device').map(([serial]) => serial);
          const start: Start = { at: t, triggers: plan.triggers, refresh: plan.refresh, hold: plan.hold, present };
          obs.starts.push(start);
          for (const p of planner.plannedRetries()) {
            if (p <= t && !obs.violation) obs.violation = `take at ${t}: a retry is still planned at ${p}`;
          }
          flight = { endAt: t + input.durations[reportNo % input.durations.length]!, start };
        }
      }
      check('step');
    }
  };

  const finish = (start: Start): void => {
    const answer = input.answers[reportNo++ % input.answers.length]!;
    start.endAt = t;
    start.answer = answer;
    // Probes of the refresh set finish with the report.
    for (const serial of start.refresh) {
      if (state.get(serial) !== 'device' || start.hold.has(serial)) continue;
      obs.probes.push({ serial, startedAt: start.at, ok: !wedged.has(serial) });
      bed.probeOutcome(serial, !wedged.has(serial), t);
    }
    if (answer.kind === 'ok') {
      const failed: FailedDevice[] = [
        ...answer.failSent.map((i) => start.present[i % Math.max(1, start.present.length)]).filter((u): u is string => u !== undefined),
        ...answer.failUnsent.map((i) => serialOf(DEVICES + i)),
      ].map((udid) => ({ udid, message: 'missing capability' }));
      planner.finished({ delivered: true, sent: start.present, failedDevices: failed }, t);
      lastDeliveredSent = new Set(start.present);
    } else {
      if (answer.kind !== 'transient') obs.refused.push(obs.starts.indexOf(start));
      planner.finished({ delivered: false, failure: answer.kind, retryAfterMs: answer.retryAfterMs }, t);
    }
  };

  const apply = (ev: SimEvent): void => {
    if (ev.kind === 'source-resumed') {
      obs.resumes.push(t);
      planner.sourceConnected(t, 10_000);
      return bed.sourceResumed(t);
    }
    if (ev.kind === 'requested') return planner.requested();
    const serial = serialOf((ev as { device: number }).device);
    let to: string | undefined | null = null;
    if (ev.kind === 'plug' && state.get(serial) !== 'device') to = 'device';
    if (ev.kind === 'unplug' && state.has(serial)) to = undefined;
    if (ev.kind === 'offline' && state.has(serial) && state.get(serial) !== 'offline') to = 'offline';
    if (ev.kind === 'wedge') wedged.add(serial);
    if (ev.kind === 'unwedge') wedged.delete(serial);
    if (to === null) return;
    if (to === undefined) state.delete(serial);
    else state.set(serial, to);
    obs.changes.push({ at: t, serial, startsBefore: obs.starts.length });
    bed.deviceChanged(serial, to, t);
  };

  planner.start(0);
  check('start');
  for (const ev of input.events) {
    const target = t + ev.dt;
    step(target);
    t = target;
    apply(ev);
    check(ev.kind);
  }
  step(horizonMs);
  obs.endAt = Math.max(t, horizonMs);
  return obs;
}

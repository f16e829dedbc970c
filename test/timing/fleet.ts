// A fleet of agents on one virtual time line: each agent is the real
// Scheduler, ReportPlanner and PlanTimer, wired as src/agent/report-loop.ts
// wires them (the schedule's ticks go through the PlanTimer into the
// planner, its one timer fires when the planner says, and the reports'
// outcomes go back to the planner), against a cloud whose
// answer depends on when a PUT arrives. Nothing else of an agent runs:
// collecting takes a fixed time per agent, and a PUT is answered 50 ms after
// it arrives. Pure and replayable: every random draw comes from seeded sources.

import { silentLogger } from '../../src/log/logger.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { PlanTimer } from '../../src/timing/plan-timer.js';
import { ReportPlanner, type PlannedReport, type Trigger } from '../../src/timing/planner.js';
import { Scheduler } from '../../src/timing/scheduler.js';
import { seededRandom, VirtualTime } from '../support/virtual-time.js';

export type CloudAnswer = { kind: 'ok' } | { kind: 'transient'; retryAfterMs?: number };

export interface FleetOptions {
  agents: number;
  /** Monotonic ms the simulation runs. */
  horizonMs: number;
  /** What the cloud answers a PUT arriving at monotonic ms t. */
  cloud: (t: number) => CloudAnswer;
  expression?: string;
  jitterMs?: number;
  seed?: number;
  /** Node ids (default: random UUIDs, as generated at first start). */
  nodeId?: (agent: number) => string;
  /**
   * Each agent's adb listings over time (monotonic ms, the serials listed
   * then): a hub tree switched on is one listing more per arriving phone.
   * Default: no devices.
   */
  listings?: (agent: number) => ReadonlyArray<{ at: number; serials: readonly string[] }>;
}

export interface Attempt {
  agent: number;
  /** When the PUT reached the cloud (monotonic ms). */
  at: number;
  /** When the planner handed the report out (its collecting began). */
  startedAt: number;
  triggers: Trigger[];
  answer: CloudAnswer;
}

/** How often each simulated scheduler compares its clocks: none steps, so once a minute finds what once a second did (nothing). */
const CLOCK_CHECK_MS = 60_000;
const ANSWER_MS = 50;
const silent = silentLogger();

export function simulateFleet(options: FleetOptions): { attempts: Attempt[]; periodMs: number; time: VirtualTime } {
  const { agents, horizonMs, cloud, expression = '* * * * *', jitterMs = 10_000, seed = 1 } = options;
  const time = new VirtualTime();
  const ids = seededRandom(seed * 7919);
  const uuid = () =>
    Array.from({ length: 4 }, () =>
      Math.floor(ids() * 2 ** 32)
        .toString(16)
        .padStart(8, '0'),
    ).join('-');
  const attempts: Attempt[] = [];
  let periodMs = 0;

  for (let i = 0; i < agents; i++) {
    // Separate random sources for the schedule and the planner, so that a run
    // with an outage draws the same schedule as the run without it.
    const schedClock = time.clock({ seed: seed * 1_000_003 + i, wallOffsetMs: Math.round((seededRandom(seed + i)() - 0.5) * 40) });
    const planRandom = seededRandom(seed * 2_000_003 + i);
    const collectMs = 300 + Math.floor(seededRandom(seed * 3_000_017 + i)() * 700);
    const nodeId = options.nodeId?.(i) ?? uuid();

    const scheduler = new Scheduler({
      expression,
      jitterMs,
      nodeId,
      onTick: () => timer.tick(),
      logger: silent,
      clock: schedClock,
      // No agent's wall clock steps here (its offset is fixed): a check a second found nothing and was most of the timers.
      clockCheckMs: CLOCK_CHECK_MS,
    });
    periodMs = scheduler.periodMs();
    // Devices only where the test lists them: the fleet's schedule does not depend on them.
    const registry = new DeviceRegistry();
    const planner = new ReportPlanner(registry, {
      periodMs,
      jitterMs,
      debounceMs: 500,
      startSpreadMs: Math.min(jitterMs, periodMs),
      random: planRandom,
    });

    // Collecting takes collectMs; the cloud answers ANSWER_MS after the PUT arrives.
    const run = (plan: PlannedReport): void => {
      const startedAt = time.now;
      time.schedule(() => {
        const answer = cloud(time.now);
        attempts.push({ agent: i, at: time.now, startedAt, triggers: plan.triggers, answer });
        time.schedule(() => {
          planner.finished(
            answer.kind === 'ok'
              ? { delivered: true, sent: [], failedDevices: [] }
              : { delivered: false, failure: 'transient', retryAfterMs: answer.retryAfterMs },
            time.now,
          );
          timer.arm();
        }, ANSWER_MS);
      }, collectMs);
    };

    const timer = new PlanTimer(planner, time.clock(), run);

    for (const listing of options.listings?.(i) ?? []) {
      time.schedule(
        () => {
          registry.sync('android', new Map(listing.serials.map((serial) => [serial, 'device'])));
          planner.devicesChanged(time.now);
          timer.arm();
        },
        Math.max(0, listing.at - time.now),
      );
    }
    scheduler.start();
    timer.start();
  }
  time.runUntil(horizonMs);
  return { attempts, periodMs, time };
}

/** Attempts per second over [from, to): index k counts those in [from + k s, from + (k+1) s). */
export function perSecond(attempts: readonly Attempt[], from: number, to: number): number[] {
  const counts = new Array<number>(Math.ceil((to - from) / 1000)).fill(0);
  for (const a of attempts) if (a.at >= from && a.at < to) counts[Math.floor((a.at - from) / 1000)]!++;
  return counts;
}

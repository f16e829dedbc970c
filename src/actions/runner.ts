// The one control loop of the agent's actions (each feature's, built by
// src/agent/actions.ts): each action looks at the devices on the injected
// clock's timers and on every change, decides without I/O, and hands its
// I/O to the runner, which keeps what every action needs once:
// the booking gate's questions, one piece of work per target at a time, when
// the counted work of each target started (the cooldowns and hourly limits
// decide from it), the work in flight for stop and tests, and the Agent's ear
// for news.

import type { BookingStatusSource } from '../cloud/booking-status.js';
import { askBooking } from '../booking/ask.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { Logger } from '../log/logger.js';
import type { AgentStats } from '../stats/agent-stats.js';
import type { Clock, Timer, Timers } from '../util/clock.js';
import { InFlight } from '../util/in-flight.js';
import { CountedStarts, type Start } from './counted-starts.js';
import type { BookingGate, BookingVerdict } from '../booking/gate.js';

/** One action as the runner drives it. */
export interface Action {
  /** Its name, for the work it runs. */
  readonly name: string;
  /** How often it looks between events (ms). */
  readonly tickMs: number;
  /** Looks at the devices now: decides, and starts its work through the runner. */
  look(): void;
}

/** What every action is built with. */
export interface ActionOptions {
  /** The devices, and the facets where each action keeps its state of them. */
  registry: DeviceRegistry;
  /** Whom the booking gate's questions go to; none: nothing that disturbs a device is ever done (nobody can say it is free). */
  booking: BookingStatusSource | undefined;
  stats: AgentStats;
  logger: Logger;
  clock: Clock & Timers;
  /** How often the action looks at the devices between events. */
  tickMs?: number;
  /** The action runner shared with the other actions; else its own, on the action's gate. */
  runner?: ActionRunner;
}

/**
 * What every action does the same way through its runner: it starts and
 * stops there, looks again when the devices change, and settled() waits for
 * the work in flight (tests, one-shot commands). A subclass decides (look)
 * and carries out.
 */
export abstract class RunnerAction implements Action {
  abstract readonly name: string;
  abstract readonly tickMs: number;
  protected stopped = false;

  constructor(protected readonly runner: ActionRunner) {}

  abstract look(): void;

  start(): void {
    this.runner.start(this);
  }

  /** Async, since an action may have to undo its work before the agent goes (charge control switches paused ports on). */
  stop(): Promise<void> {
    this.stopped = true;
    this.runner.stop(this);
    return Promise.resolve();
  }

  /** An inventory answered or failed, or adb's list changed: look again now rather than at the next tick. */
  devicesChanged(): void {
    this.runner.look(this);
  }

  /** Resolves once the work and the questions in flight have ended. */
  async settled(): Promise<void> {
    await this.runner.settled();
  }
}

export interface ActionRunnerOptions {
  clock: Clock & Timers;
  /** Shared by every action: the host's status requests are bounded together. None: nothing may disturb a device. */
  gate?: BookingGate;
  /** Whom the gate's questions go to; none: every answer is an unknown, never a "not booked". */
  booking: BookingStatusSource | undefined;
  /** Something the report shows changed: the cloud should hear it now. */
  onChange?: () => void;
}

/**
 * How long the start of counted work is kept: one hour, the window the
 * hourly limits and Samsung's write cooldown count in. Work whose cooldown
 * may be longer says how long its starts are kept (run's `counted`:
 * recovery's offline cooldown, up to a day).
 */
export const COUNTED_WINDOW_MS = 3_600_000;

/**
 * A decision as the runner makes it (decide): first without the booking
 * gate's verdict, and again with `verdict()`'s, asked only when the first
 * says it turns on it ('needs-verdict'). Pure but for what `verdict` does;
 * the policies' tests decide through it.
 */
export function decideWithVerdict<D extends { kind: string }>(decision: (verdict: BookingVerdict | undefined) => D, verdict: () => BookingVerdict): D {
  const first = decision(undefined);
  return first.kind === 'needs-verdict' ? decision(verdict()) : first;
}

/** What a runner without a gate says: nothing may disturb a device. */
const NO_GATE: BookingVerdict = { kind: 'unknown', reason: 'this run only reads the setting' };

/**
 * Counted: whether a piece of work's start counts; `keepMs`, how long it is
 * kept when longer than the counted window; `failures`, the target's failure
 * count then, kept with the start (countedOf).
 */
export type Counted = boolean | { keepMs?: number; failures?: number };

export class ActionRunner {
  /** The actions that have looked and are not stopped, with their next tick. */
  private readonly live = new Map<Action, Timer>();
  private readonly stopped = new Set<Action>();
  /** The targets with a piece of work in flight (run). */
  private readonly working = new Set<string>();
  /** When counted work of each target started, within the target's window. */
  private readonly counted = new CountedStarts();
  private readonly inFlight = new InFlight();
  /** The status requests in flight, by device id. */
  private readonly questions = new Map<string, Promise<void>>();

  constructor(private readonly o: ActionRunnerOptions) {}

  /** The action looks now, then every tickMs and at every change, until stopped. */
  start(action: Action): void {
    this.look(action);
  }

  /** The action looks no more, whatever happens. */
  stop(action: Action): void {
    this.stopped.add(action);
    this.live.get(action)?.cancel();
    this.live.delete(action);
  }

  /** An inventory answered or a listing changed: every started action looks again now, not at its next tick. */
  devicesChanged(): void {
    for (const action of [...this.live.keys()]) this.look(action);
  }

  /**
   * One look of an action, and its next tick: a look at most tickMs after
   * the last one, whatever happens meanwhile. The first look starts it.
   */
  look(action: Action): void {
    if (this.stopped.has(action)) return;
    this.live.get(action)?.cancel();
    this.live.set(
      action,
      this.o.clock.setTimer(() => this.look(action), action.tickMs, { unref: true }),
    );
    action.look();
  }

  /**
   * The booking gate's verdict on disturbing the device the cloud knows by
   * this id. When the gate says to ask, the question goes out now (counted
   * against the host's bound already), and its answer makes `then` look
   * again.
   */
  verdict(deviceId: string | undefined, then: Action, maxAgeMs?: number): BookingVerdict {
    const { gate } = this.o;
    if (!gate) return NO_GATE;
    const verdict = gate.verdict(deviceId, maxAgeMs);
    if (verdict.kind === 'ask') this.inFlight.track(this.ask(gate, deviceId!, then));
    return verdict;
  }

  /**
   * The gate's verdict on an answer younger than `maxAgeMs`, asked for now
   * and awaited when the one it has is older (or a question of another look
   * is in flight): what a piece of work checks before each step that must
   * rest on a fresh "not booked" (readiness's fix, before each write). The
   * question counts against the host's bound like any: out of budget, the
   * verdict is not "free".
   */
  async freshVerdict(deviceId: string | undefined, maxAgeMs: number): Promise<BookingVerdict> {
    const { gate } = this.o;
    if (!gate) return NO_GATE;
    let verdict = gate.verdict(deviceId, maxAgeMs);
    // Once for a question already in flight, once for one of its own: then the answer is as young as it gets.
    for (let turn = 0; turn < 2 && (verdict.kind === 'ask' || verdict.kind === 'waiting'); turn++) {
      const pending = verdict.kind === 'ask' ? this.question(gate, deviceId!) : this.questions.get(deviceId!);
      if (!pending) break;
      await pending;
      verdict = gate.verdict(deviceId, maxAgeMs);
    }
    return verdict;
  }

  /**
   * An action's pure decision, made first without the booking gate's
   * verdict; only one that turns on it answers 'needs-verdict', and then the gate is
   * asked (which may cost a status request: verdict above) and the decision
   * made again with the verdict as a value.
   */
  decide<D extends { kind: string }>(deviceId: string | undefined, action: Action, decision: (verdict: BookingVerdict | undefined) => D, maxAgeMs?: number): D {
    return decideWithVerdict(decision, () => this.verdict(deviceId, action, maxAgeMs));
  }

  /**
   * Runs one piece of I/O for a target (a serial, an address, a port), never
   * two at once for the same target: false when one is in flight already.
   * `then` looks again once it has ended and the target is free, so that a
   * decision waiting on isBusy is made at once, not at the next tick.
   * `counted`: its start counts toward the target's cooldown and limits
   * (startsOf), whether the work then succeeds or not: a phone that fails
   * every write is not written in a storm; `{ keepMs }`, kept that long
   * when it is more than the counted window; `{ failures }`, kept with it.
   */
  run(target: string, work: () => Promise<void>, then?: Action, counted: Counted = false): boolean {
    if (this.working.has(target)) return false;
    this.working.add(target);
    if (counted) {
      const { keepMs = 0, failures = 0 } = counted === true ? {} : counted;
      this.counted.count(target, this.o.clock.monotonic(), Math.max(COUNTED_WINDOW_MS, keepMs), failures);
    }
    this.inFlight.track(
      (async () => {
        try {
          await work();
        } finally {
          this.working.delete(target);
        }
        if (then) this.look(then);
      })(),
    );
    return true;
  }

  /** Whether a piece of work for the target is in flight: a decision that must wait for it takes this as a value. */
  isBusy(target: string): boolean {
    return this.working.has(target);
  }

  /**
   * When counted work of the target started (monotonic ms, oldest first),
   * within its window: a decision's cooldown and hourly limit take this as
   * a value.
   */
  startsOf(target: string): readonly number[] {
    return this.countedOf(target).map((s) => s.at);
  }

  /** The same starts with the failure count each was started at (recovery's kicks and cycles). */
  countedOf(target: string): readonly Start[] {
    return this.counted.of(target, this.o.clock.monotonic());
  }

  /** Work kept for settled() that no decision waits for (charge control switching on, at its start, the ports a crashed run left off). */
  track(work: Promise<void>): void {
    this.inFlight.track(work);
  }

  /** Something the report shows changed: the Agent plans a report now. */
  changed(): void {
    this.o.onChange?.();
  }

  /** Resolves once the work and questions in flight, and whatever they started, have ended. */
  async settled(): Promise<void> {
    await this.inFlight.settled();
  }

  private async ask(gate: BookingGate, deviceId: string, then: Action): Promise<void> {
    await this.question(gate, deviceId);
    // A stopped action's answer is kept by the gate; the action does not look again.
    if (!this.stopped.has(then)) then.look();
  }

  /** One status request the gate said to make, its answer handed to the gate; kept while in flight, so that work needing it may await it. */
  private question(gate: BookingGate, deviceId: string): Promise<void> {
    const pending = (async () => {
      try {
        gate.answered(deviceId, await askBooking(this.o.booking, deviceId));
      } finally {
        this.questions.delete(deviceId);
      }
    })();
    this.questions.set(deviceId, pending);
    this.inFlight.track(pending);
    return pending;
  }
}

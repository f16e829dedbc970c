// The one control loop of the features' actions. An action's pure policy, handed values (marks, counted starts, the
// gate's verdict), returns intents; the runner carries each out, one per target at a time, counting its start and
// outcome, and keeps for every action the booking questions, refusals and holds (said and counted once) and the work.
import { askBooking } from '../booking/ask.js';
import type { BookingGate, BookingVerdict } from '../booking/gate.js';
import type { BookingStatusSource } from '../cloud/booking-status.js';
import { facetKey } from '../devices/facet.js';
import type { ActionDone } from '../devices/feature.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import { SaidOnce } from '../log/said-once.js';
import type { AgentStats } from '../stats/agent-stats.js';
import type { CounterKey } from '../stats/counter.js';
import type { Clock, Timer, Timers } from '../util/clock.js';
import { InFlight } from '../util/in-flight.js';
import { CountedStarts, type Start } from './counted-starts.js';
import { ACTIONS_REFUSED } from './trust.js';

/** What an action acts on, in the order the actions start (they stop in reverse): a phone's link, its hub port's power, its settings, its place in the cloud's pool. */
export const ACTS_ON = ['link', 'power', 'settings', 'pool'] as const;

/** How long a counted start is kept: the hour the hourly limits count in; an intent may ask for longer (recovery's offline reconnect). */
export const COUNTED_WINDOW_MS = 3_600_000;

/** Whether an intent's start counts; `keepMs`, how long when longer than the window; `failures`, the target's failure count then (countedOf). */
export type Counted = boolean | { keepMs?: number; failures?: number };

/** One piece of work an action decided on. */
export interface Intent {
  /** What it is done to (a phone, a port, an address): one piece of work per target at a time. */
  readonly target: string;
  /** The record key of the device it is for, when it is for one: those who follow the actions (ActionDone) hear it by it. */
  readonly device?: string;
  /** Its start counts toward the target's cooldowns and limits, whether it then succeeds or not. */
  readonly counted?: Counted;
  /** The action looks again once it has ended and the target is free. */
  readonly lookAfter?: boolean;
  /** Its outcome, counted: these labels, then what apply resolved with (ok when nothing), or failed when it threw. */
  readonly count?: { readonly key: CounterKey; readonly labels: readonly string[] };
  /** No I/O: applied within the look, never marked busy or counted. */
  readonly now?: boolean;
}

/** A line an action words and the runner says (through the logger's limiter, by its key). */
export interface Line {
  key: string;
  fields: Record<string, unknown>;
  text: string;
  /** The limiter's subject: the device, the port. */
  subject?: string;
  level?: 'info' | 'warn';
}

/** A host action not taken for a device whose identity does not hold (trust.ts): said once per device, action and reason, and counted. */
export interface Refusal {
  /** The device's record key: a refusal of a device that went is said again if it comes back refused. */
  key: string;
  /** As counted in device_agent_actions_refused_total: kick, power_cycle, charge_pause, ... */
  action: string;
  why: string;
  line: Line;
}

/** An action the booking gate holds back from a device (booked, or the cloud could not say). */
export interface Hold {
  /** The device's record key: the hold goes with its record. */
  key: string;
  /** The feature it is of: one hold per feature and device. */
  by: string;
  /** What the device's message says while it lasts; none: nothing. */
  note?: string;
  /** Counted and said once while the same (the cloud's answer, or the reason for a whole stretch). */
  mark: string;
  count: NonNullable<Intent['count']>;
  line: Line;
  /** Said and counted already, by the work that met it: only its note and mark are kept. */
  quiet?: boolean;
}

/** What a decision reads of the runner, as values, and where it leaves what the runner says for it. */
export interface ActionLook {
  /** Monotonic ms. */
  readonly now: number;
  /** A piece of work for the target is in flight: a decision that must wait for it takes this as a value. */
  isBusy(target: string): boolean;
  /** When counted work of the target started (monotonic ms, oldest first), within its window: cooldowns and hourly limits decide from it. */
  startsOf(target: string): readonly number[];
  /** The same starts with the failure count each was started at (recovery's kicks and cycles). */
  countedOf(target: string): readonly Start[];
  /** The gate's verdict on disturbing this cloud id (a question it says to ask goes out now); `maxAgeMs`: the oldest answer to act on. */
  verdict(deviceId: string | undefined, maxAgeMs?: number): BookingVerdict;
  /** A decision made without the gate's verdict, and again with it only when it says it turns on it ('needs-verdict'). */
  decide<D extends { kind: string }>(deviceId: string | undefined, decision: (verdict: BookingVerdict | undefined) => D, maxAgeMs?: number): D;
  /** The devices in the order the gate would rather ask about them: the one asked about longest ago (never, first). */
  byTurn<T>(devices: readonly T[], idOf: (d: T) => string | undefined): T[];
  refuse(refusal: Refusal): void;
  hold(hold: Hold): void;
  /** The hold is over: its note goes; `ended`, the next one is said and counted again. */
  release(key: string, by: string, ended: boolean): void;
  /** Something the report shows changed: the cloud should hear it now. */
  changed(): void;
}

/** What carrying an intent out may ask and tell the runner. */
export type Applying = Pick<ActionLook, 'changed' | 'release' | 'hold'> & {
  /** The gate's verdict on an answer younger than `maxAgeMs`, asked and awaited when older: for work whose every step rests on a fresh "not booked". */
  freshVerdict(deviceId: string | undefined, maxAgeMs: number): Promise<BookingVerdict>;
};

/** What a runner without a gate says: nothing may disturb a device. */
const NO_GATE: BookingVerdict = { kind: 'unknown', reason: 'this run only reads the setting' };

/** A decision as the runner makes it (ActionLook.decide); the policies' tests decide through it. */
export function decideWithVerdict<D extends { kind: string }>(decision: (verdict: BookingVerdict | undefined) => D, verdict: () => BookingVerdict) {
  const first = decision(undefined);
  return first.kind === 'needs-verdict' ? decision(verdict()) : first;
}

/** A feature's action as the runner drives it. */
export interface DeviceAction<I extends Intent = Intent> {
  readonly name: string;
  readonly actsOn: (typeof ACTS_ON)[number];
  /** How often it looks between events (ms). */
  readonly tickMs: number;
  /** False: the settings leave it nothing to do, and it never looks; its start and stop still run. */
  readonly wanted: boolean;
  /** A command that changes nothing (`list`) looks with it once, without a booking gate: it reads, and writes nothing that needs one. */
  readonly readOnce?: boolean;
  /** The intents due now. */
  decide(look: ActionLook): readonly I[];
  /** Carries one intent out: resolves with its result for the count (ok when none), throws when it failed. */
  apply(intent: I, look: Applying): Promise<string | void> | void;
  /** What a failed intent leaves: its lines and state (it was counted failed already). */
  failed?(intent: I, error: unknown, look: Applying): Promise<void> | void;
  /** Before its first look (charge control switches on the ports a crashed run left off): work handed to `track` is waited for by settled(). */
  start?(track: (work: Promise<void>) => void): void;
  /** After its last look, before the agent goes (charge control switches its paused ports on). */
  stop?(): Promise<void>;
}

/** The actions in the order they start: by what they act on (ACTS_ON), then in the order given. */
export function inStartOrder(actions: readonly DeviceAction[]) {
  return ACTS_ON.flatMap((on) => actions.filter((a) => a.actsOn === on));
}

export interface ActionRunnerOptions {
  clock: Clock & Timers;
  registry: DeviceRegistry;
  stats: AgentStats;
  logger: Logger;
  /** Shared by every action: the host's status requests are bounded together. None: nothing may disturb a device. */
  gate?: BookingGate;
  /** Whom the gate's questions go to; none: every answer is an unknown, never a "not booked". */
  booking?: BookingStatusSource;
  /** Something the report shows changed: the cloud should hear it now. */
  onChange?: () => void;
  /** Each intent that did I/O, once it ended: what it was and how it went (the features' `acted`). */
  onDone?: (done: ActionDone) => void;
}

/** A device's holds, by the feature that holds: a note for its message, and the mark last said and counted. */
type Holds = Record<string, { note?: string; mark?: string }>;

/** Dropped with the record: a device that comes back is held afresh. */
const HOLDS = facetKey<Holds>('action-holds', 'record');

/** The note a feature's hold puts in a device's message, while it lasts. */
export function holdNote(registry: Pick<DeviceRegistry, 'facet'>, key: string, by: string) {
  return registry.facet(HOLDS).get(key)?.[by]?.note;
}

export class ActionRunner {
  /** The actions that have looked and are not stopped, with their next tick. */
  private readonly live = new Map<DeviceAction, Timer>();
  private readonly stopped = new Set<DeviceAction>();
  /** The targets with a piece of work in flight. */
  private readonly working = new Set<string>();
  /** When counted work of each target started, within the target's window. */
  private readonly counted = new CountedStarts();
  private readonly inFlight = new InFlight();
  /** The status requests in flight, by device id. */
  private readonly questions = new Map<string, Promise<void>>();
  /** The refusals said ("KEY|ACTION", with why), while the device is listed. */
  private readonly refused = new SaidOnce();
  /** What carrying an intent out, and a decision, may tell the runner. */
  private readonly applying: Applying = {
    changed: () => this.o.onChange?.(),
    release: (key, by, ended) => this.release(key, by, ended),
    hold: (h) => this.hold(h),
    freshVerdict: (deviceId, maxAgeMs) => this.freshVerdict(deviceId, maxAgeMs),
  };

  constructor(private readonly o: ActionRunnerOptions) {}

  /** The action looks now, then every tickMs and at every change, until stopped; one the settings leave nothing to do only starts. */
  start(action: DeviceAction) {
    action.start?.((work) => this.inFlight.track(work));
    if (action.wanted) this.look(action);
  }

  /** The action looks no more, whatever happens, and undoes what must not outlive the agent. */
  async stop(action: DeviceAction) {
    this.halt(action);
    await action.stop?.();
  }

  private halt(action: DeviceAction) {
    this.stopped.add(action);
    this.live.get(action)?.cancel();
    this.live.delete(action);
  }

  /** An inventory answered or a listing changed: every started action looks again now, not at its next tick. */
  devicesChanged() {
    for (const action of [...this.live.keys()]) this.look(action);
  }

  /** One look of an action, and its next tick: a look at most tickMs after the last one, whatever happens meanwhile. */
  look(action: DeviceAction) {
    if (this.stopped.has(action) || !action.wanted) return;
    this.live.get(action)?.cancel();
    this.live.set(
      action,
      this.o.clock.setTimer(() => this.look(action), action.tickMs, { unref: true }),
    );
    const { registry } = this.o;
    for (const intent of action.decide(this.lookOf(action))) this.run(action, intent);
    this.refused.retain((subject) => registry.get(subject.slice(0, subject.lastIndexOf('|'))) !== undefined);
  }

  /** One look, and whatever it started, for a command that changes nothing (`list`): no tick follows. */
  async once(action: DeviceAction) {
    this.look(action);
    await this.settled();
    this.halt(action);
  }

  /** Resolves once the work and questions in flight, and whatever they started, have ended. */
  async settled() {
    await this.inFlight.settled();
  }

  /** What a decision of this action reads and says through. */
  private lookOf(action: DeviceAction): ActionLook {
    const now = this.o.clock.monotonic();
    const verdict: ActionLook['verdict'] = (deviceId, maxAgeMs) => this.verdict(deviceId, action, maxAgeMs);
    return {
      ...this.applying,
      now,
      isBusy: (target) => this.working.has(target),
      startsOf: (target) => this.counted.of(target, now).map((s) => s.at),
      countedOf: (target) => this.counted.of(target, now),
      verdict,
      decide: (deviceId, decision, maxAgeMs) => decideWithVerdict(decision, () => verdict(deviceId, maxAgeMs)),
      byTurn: (devices, idOf) => (this.o.gate ? this.o.gate.byTurn(devices, idOf) : [...devices]),
      refuse: (r) => this.refuse(r),
    };
  }

  private verdict(deviceId: string | undefined, then: DeviceAction, maxAgeMs?: number) {
    const { gate } = this.o;
    if (!gate) return NO_GATE;
    const verdict = gate.verdict(deviceId, maxAgeMs);
    if (verdict.kind === 'ask') this.inFlight.track(this.ask(gate, deviceId!, then));
    return verdict;
  }

  private async freshVerdict(deviceId: string | undefined, maxAgeMs: number) {
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

  private async ask(gate: BookingGate, deviceId: string, then: DeviceAction) {
    await this.question(gate, deviceId);
    // A stopped action's answer is kept by the gate; the action does not look again.
    if (!this.stopped.has(then)) this.look(then);
  }

  /** One status request the gate said to make, its answer handed to the gate; kept while in flight, so that work needing it may await it. */
  private question(gate: BookingGate, deviceId: string) {
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

  /** Carries an intent out: at once when it does no I/O; else once its target is free, counted as it starts. */
  private run<I extends Intent>(action: DeviceAction<I>, intent: I) {
    const look = this.applying;
    if (intent.now) {
      void action.apply(intent, look);
      return;
    }
    const { target, counted } = intent;
    if (this.working.has(target)) return;
    this.working.add(target);
    if (counted) {
      const { keepMs = 0, failures = 0 } = counted === true ? {} : counted;
      this.counted.count(target, this.o.clock.monotonic(), Math.max(COUNTED_WINDOW_MS, keepMs), failures);
    }
    const count = (result: string) => {
      if (intent.count) this.o.stats.counter(intent.count.key).add(...intent.count.labels, result);
      this.o.onDone?.({
        action: action.name,
        actsOn: action.actsOn,
        target,
        outcome: result,
        ...(intent.device !== undefined && { device: intent.device }),
        ...(intent.count && { labels: intent.count.labels }),
      });
    };
    this.inFlight.track(
      (async () => {
        try {
          count((await action.apply(intent, look)) ?? 'ok');
        } catch (error) {
          count('failed');
          await action.failed?.(intent, error, look);
        } finally {
          this.working.delete(target);
        }
        if (intent.lookAfter) this.look(action);
      })(),
    );
  }

  private refuse(r: Refusal) {
    if (!this.refused.say(`${r.key}|${r.action}`, r.why)) return;
    this.o.stats.counter(ACTIONS_REFUSED).add(r.action);
    this.say(r.line, 'warn');
  }

  private hold(h: Hold) {
    const facet = this.o.registry.facet(HOLDS);
    const holds = { ...facet.get(h.key) };
    const said = holds[h.by]?.mark === h.mark;
    facet.set(h.key, { ...holds, [h.by]: { note: h.note, mark: h.mark } });
    // Only a listed device has holds: they go with its record.
    if (said || h.quiet || facet.get(h.key) === undefined) return;
    this.o.stats.counter(h.count.key).add(...h.count.labels);
    this.say(h.line, 'info');
  }

  private release(key: string, by: string, ended: boolean) {
    const facet = this.o.registry.facet(HOLDS);
    const held = facet.get(key)?.[by];
    if (held === undefined || (held.note === undefined && !ended)) return;
    facet.set(key, { ...facet.get(key), [by]: ended ? {} : { mark: held.mark } });
  }

  private say(line: Line, level: 'info' | 'warn') {
    limited(this.o.logger)[line.level ?? level](line.key, line.fields, line.text, line.subject);
  }
}

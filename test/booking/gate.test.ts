import { ConnectBackoffs } from '../../src/actions/recovery/connects.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { BookingAnswer } from '../../src/cloud/booking-status.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { Escalations, historyOf } from '../../src/actions/recovery/escalations.js';
import { BookingGate, cloudIdOf, type BookingGateSettings } from '../../src/booking/gate.js';
import { RecoveryPolicy, defaultRecoverySettings, type Disruption, type ListedDevice, type RecoveryAction } from '../../src/actions/recovery/policy.js';
import { VirtualTime } from '../../src/util/clock.js';

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

// ---- the rule as a property of recovery's policy and the gate together ----

// A, B, C on USB; 10.0.0.5:5555 a configured network device.
const serials = ['A', 'B', 'C', '10.0.0.5:5555'];
const states = ['device', 'device', 'device', 'offline', 'gone'];
type CloudMode = 'answers' | 'fails' | 'times-out' | 'garbage';
const TIMEOUT_MS = 5_000;

const event = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('shell' as const), serial: fc.constantFrom(...serials), ok: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('list' as const), states: fc.array(fc.constantFrom(...states), { minLength: 4, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('book' as const), serial: fc.constantFrom(...serials), booked: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('cloud' as const), mode: fc.constantFrom<CloudMode>('answers', 'answers', 'fails', 'times-out', 'garbage') }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
);
const step = fc.record({ dt: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 90_000 })), e: event });
type Step = { dt: number; e: { kind: string; serial?: string; ok?: boolean; states?: string[]; booked?: boolean; mode?: CloudMode } };

/**
 * Recovery's loop without I/O, as src/actions/recovery/recovery.ts runs it: the
 * registry's records, the policy asked with the gate as its mayDisturb, the
 * devices in the gate's turn order, a question for every "ask", and a look
 * again when an answer comes. The cloud answers after a while: the booking
 * as it is then, an error, garbage (both unknowns), or nothing until the
 * status client's deadline.
 */
class Bed {
  readonly time = new VirtualTime();
  readonly clock = this.time.clock();
  readonly registry = new DeviceRegistry();
  private readonly escalations = new Escalations(this.registry, 'android');
  // Power cycling on, with hub ports for A and B: a kick, then the port's power.
  readonly policy = new RecoveryPolicy({ ...defaultRecoverySettings, powerCycle: true }, ['10.0.0.5:5555']);
  // What recovery keeps between looks, as the runner and ConnectBackoffs keep it for it.
  private readonly backoffs = new ConnectBackoffs(['10.0.0.5:5555'], defaultRecoverySettings);
  private lastOfflineReconnect: number | undefined;
  readonly ports = new Map([
    ['A', { hub: '1-1', port: 1 }],
    ['B', { hub: '1-1', port: 2 }],
  ]);
  readonly gate = new BookingGate(settings, this.clock);
  readonly booked = new Map<string, boolean>();
  mode: CloudMode = 'answers';
  /** Every answer the gate got, by device id. */
  readonly answers = new Map<string, Array<{ at: number; answer: BookingAnswer }>>();
  readonly asked: number[] = [];
  /** Actions taken, with the cloud's latest answer on the device at that moment. */
  readonly actions: Array<{ at: number; serial: string; kind: string; last: { at: number; answer: BookingAnswer } | undefined }> = [];
  private listing = new Map<string, string>();

  list(next: ReadonlyMap<string, string>): void {
    this.listing = new Map(next);
    this.registry.sync('android', this.listing);
  }

  shell(serial: string, ok: boolean): void {
    const key = `android/${serial}`;
    if (!this.registry.get(key) || this.registry.get(key)!.state !== 'device') return;
    const now = this.clock.monotonic();
    if (ok)
      this.registry.answered(
        key,
        { udid: serial, serialNumber: serial, state: 'device', status: 'AVAILABLE', platformName: 'ANDROID', isAndroid: true, isIos: false },
        this.clock.wall(),
        now,
      );
    else this.registry.failed(key, 'missed its deadline', this.clock.wall(), now);
  }

  tick(): void {
    const now = this.clock.monotonic();
    const records = this.registry.list('android');
    const { escalations } = this;
    escalations.prune(now - 3_600_000);
    escalations.listed(records, now);
    const ids = new Map(records.map((r) => [r.key, cloudIdOf(r.serial, r.udid ?? escalations.of(r.serial)?.udid)]));
    const listed: ListedDevice[] = records.map((r) => ({
      serial: r.serial,
      state: r.state,
      key: r.key,
      failures: r.failures,
      failingSince: r.failure?.first,
      hubPort: this.ports.get(r.serial),
      ...historyOf(escalations.of(r.serial)),
    }));
    const devices = this.gate.byTurn(listed, (d) => ids.get(d.key!));
    // The gate asked about each disruption due, in the policy's order, before it decides with the answers as values.
    const cleared = new Map<string, Set<Disruption>>();
    const last = this.lastOfflineReconnect;
    const facts = { connects: this.backoffs.view, ...(last !== undefined && { lastOfflineReconnect: last }) };
    for (const due of this.policy.due(devices, now, facts)) {
      const id = ids.get(due.key);
      const verdict = this.gate.verdict(id);
      if (verdict.kind === 'ask') this.question(id!);
      if (verdict.kind === 'free') cleared.set(due.key, (cleared.get(due.key) ?? new Set<Disruption>()).add(due.action));
    }
    for (const a of this.backoffs.take(this.policy.tick(devices, now, { ...facts, cleared }))) this.act(a, now);
  }

  private lastAnswer(serial: string): { at: number; answer: BookingAnswer } | undefined {
    const id = cloudIdOf(serial, this.registry.find('android', serial)?.udid ?? this.escalations.of(serial)?.udid);
    return id === undefined ? undefined : this.answers.get(id)?.at(-1);
  }

  private act(a: RecoveryAction, now: number): void {
    if (a.kind === 'power-cycle') {
      this.escalations.note(a.serial, 'cycle', now, undefined, this.registry.get(a.key)?.failures);
      const offline = this.registry.find('android', a.serial)?.state === 'offline';
      this.actions.push({ at: now, serial: a.serial, kind: offline ? 'power-cycle-offline' : 'power-cycle', last: this.lastAnswer(a.serial) });
    } else if (a.kind === 'kick') {
      this.escalations.note(a.serial, 'kick', now, undefined, this.registry.get(a.key)?.failures);
      this.actions.push({ at: now, serial: a.serial, kind: 'kick', last: this.lastAnswer(a.serial) });
    } else if (a.kind === 'reconnect-offline') {
      this.lastOfflineReconnect = now;
      for (const serial of a.serials) {
        this.actions.push({ at: now, serial, kind: 'reconnect', last: this.lastAnswer(serial) });
        this.escalations.reconnected(serial);
      }
      // adb's host-wide command only when it reconnects no other offline device than these (none held back).
      if (a.all) {
        const offline = [...this.listing].filter(([, st]) => st !== 'device').map(([s]) => s);
        expect(offline.sort()).toEqual([...a.serials].sort());
      }
    }
  }

  private question(id: string): void {
    const asked = this.clock.monotonic();
    this.asked.push(asked);
    const mode = this.mode;
    const latency = mode === 'times-out' ? TIMEOUT_MS : Math.floor(this.clock.random() * 3_000);
    this.clock.setTimer(() => {
      const answer: BookingAnswer =
        mode === 'answers'
          ? { booked: this.booked.get(id) ?? false }
          : mode === 'fails'
            ? { unknown: 'HTTP 503 Service Unavailable' }
            : mode === 'garbage'
              ? { unknown: 'the cloud answered without a boolean isBooked' }
              : { unknown: `no answer within ${TIMEOUT_MS / 1000} s` };
      this.gate.answered(id, answer);
      const list = this.answers.get(id) ?? [];
      list.push({ at: this.clock.monotonic(), answer });
      this.answers.set(id, list);
      this.tick();
    }, latency);
  }

  /** The rule: every action on a device follows a fresh "not booked" from the cloud, its latest answer. */
  checkActions(from: number): void {
    for (const { last, ...a } of this.actions.slice(from)) {
      expect(last?.answer, `${a.kind} of ${a.serial} at ${a.at}`).toEqual({ booked: false });
      expect(a.at - last!.at).toBeLessThan(settings.cacheMs);
    }
  }

  checkRate(): void {
    for (let i = 0; i < this.asked.length; i++) {
      const inMinute = this.asked.filter((t) => t > this.asked[i]! - 60_000 && t <= this.asked[i]!).length;
      expect(inMinute).toBeLessThanOrEqual(settings.maxRequestsPerMinute);
    }
  }
}

function play(bed: Bed, steps: Step[]): void {
  for (const { dt, e } of steps) {
    const seen = bed.actions.length;
    bed.time.advance(dt);
    switch (e.kind) {
      case 'shell':
        bed.shell(e.serial!, e.ok!);
        break;
      case 'list':
        bed.list(new Map(serials.flatMap((s, i) => (e.states![i] === 'gone' ? [] : [[s, e.states![i]!] as [string, string]]))));
        break;
      case 'book':
        bed.booked.set(e.serial!, e.booked!);
        break;
      case 'cloud':
        bed.mode = e.mode!;
        break;
    }
    bed.tick();
    bed.checkActions(seen);
    expect(bed.gate.size()).toBeLessThanOrEqual(serials.length * 2 + settings.maxRequestsPerMinute);
  }
}

describe('the booking rule over random sequences', () => {
  it('no action on a device whose latest answer is booked or unknown; status requests within the bound', () => {
    // Not vacuous: across the runs, actions (power cycles of wedged and of offline phones among them) are taken and devices are held back as booked.
    let acted = 0;
    let cycled = 0;
    let cycledOffline = 0;
    let heldBooked = 0;
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300, size: 'max' }), (steps) => {
        const bed = new Bed();
        bed.list(new Map(serials.map((s) => [s, 'device'])));
        play(bed, steps);
        // Questions still in flight land, and nothing they let through breaks the rule.
        const seen = bed.actions.length;
        bed.time.advance(TIMEOUT_MS);
        bed.checkActions(seen);
        bed.checkRate();
        acted += bed.actions.length;
        cycled += bed.actions.filter((a) => a.kind === 'power-cycle').length;
        cycledOffline += bed.actions.filter((a) => a.kind === 'power-cycle-offline').length;
        heldBooked += [...bed.answers.values()].flat().filter((a) => 'booked' in a.answer && a.answer.booked).length;
      }),
      { numRuns: 300 },
    );
    expect(acted).toBeGreaterThan(100);
    expect(cycled).toBeGreaterThan(0);
    // The power cycle of a phone offline reconnects did not bring back, too.
    expect(cycledOffline).toBeGreaterThan(0);
    expect(heldBooked).toBeGreaterThan(100);
  });

  it('recovery still proceeds when the cloud says not booked: a wedged phone is kicked and an offline one reconnected', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200, size: 'max' }), fc.constantFrom('A', 'B', 'C'), fc.constantFrom('A', 'B', 'C'), (steps, wedged, offline) => {
        fc.pre(wedged !== offline);
        const bed = new Bed();
        bed.list(new Map(serials.map((s) => [s, 'device'])));
        play(bed, steps);
        // Then the bookings end and the cloud answers again; an hour on, the kick budget is back.
        bed.booked.clear();
        bed.mode = 'answers';
        bed.time.advance(2 * 3_600_000);
        bed.list(new Map(serials.map((s) => [s, s === offline ? 'offline' : 'device'])));
        const before = bed.actions.length;
        for (let i = 0; i < defaultRecoverySettings.kickAfterFailures; i++) bed.shell(wedged, false);
        // Recovery looks every 2 s; the gate's turns bound the wait to a few minutes.
        for (let t = 0; t < 180_000; t += 2_000) {
          bed.time.advance(2_000);
          bed.tick();
        }
        const done = bed.actions.slice(before);
        expect(done.some((a) => a.kind === 'kick' && a.serial === wedged)).toBe(true);
        expect(done.some((a) => a.kind === 'reconnect' && a.serial === offline)).toBe(true);
        bed.checkActions(before);
        bed.checkRate();
      }),
      { numRuns: 150 },
    );
  });
});

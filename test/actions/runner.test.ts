import { describe, expect, it } from 'vitest';
import { ActionRunner, holdNote, type ActionLook, type DeviceAction, type Intent } from '../../src/actions/runner.js';
import { ACTIONS_REFUSED } from '../../src/actions/trust.js';
import { BookingGate } from '../../src/booking/gate.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { counterKey } from '../../src/stats/counter.js';
import { VirtualTime } from '../support/virtual-time.js';
import { captureLogger } from '../log/capture.js';

// The one control loop of the actions on virtual time, with a probe action
// whose decisions the test gives: what the runner keeps once for every action
// (its looks and ticks, one piece of work per target, the counted starts, the
// booking questions, the refusals and holds said once, the outcomes counted).

type Probe = Intent & { work?: () => Promise<string | void> };

function bed(gate?: (clock: ReturnType<VirtualTime['clock']>) => BookingGate, ask = () => Promise.resolve({ booked: false })) {
  const time = new VirtualTime();
  const clock = time.clock();
  const registry = new DeviceRegistry();
  const stats = new AgentStats();
  const log = captureLogger('info');
  let questions = 0;
  const runner = new ActionRunner({
    clock,
    registry,
    stats,
    logger: log.logger,
    ...(gate && { gate: gate(clock) }),
    booking: { ask: () => (questions++, ask()) },
  });
  const looks: number[] = [];
  /** What the next look decides; the look itself is kept for the test to ask the runner through. */
  const next: Array<(look: ActionLook) => Probe[]> = [];
  let last: ActionLook | undefined;
  const failures: unknown[] = [];
  const action: DeviceAction<Probe> = {
    name: 'probe',
    actsOn: 'link',
    tickMs: 60_000,
    wanted: true,
    decide: (look) => {
      looks.push(time.now);
      last = look;
      return next.shift()?.(look) ?? [];
    },
    apply: (intent) => intent.work?.(),
    failed: (_intent, error) => void failures.push(error),
  };
  return { time, clock, registry, stats, log, runner, action, looks, next, failures, questions: () => questions, look: () => last! };
}

describe('ActionRunner', () => {
  it('looks at an action at most tickMs after its last look, and never after it is stopped', async () => {
    const b = bed();
    const action = { ...b.action, tickMs: 2_000 };
    b.runner.start(action);
    b.time.advance(1_500);
    b.runner.devicesChanged();
    b.time.advance(5_000);
    expect(b.looks).toEqual([0, 1_500, 3_500, 5_500]);
    await b.runner.stop(action);
    b.runner.devicesChanged();
    b.runner.look(action);
    b.time.advance(10_000);
    expect(b.looks).toHaveLength(4);
    expect(b.time.pending).toBe(0);
  });

  it('never looks with an action the settings leave nothing to do, yet runs its start and stop', async () => {
    const b = bed();
    const seen: string[] = [];
    const idle = { ...b.action, wanted: false, start: () => void seen.push('start'), stop: () => (seen.push('stop'), Promise.resolve()) };
    b.runner.start(idle);
    b.runner.devicesChanged();
    b.time.advance(120_000);
    await b.runner.stop(idle);
    expect(b.looks).toEqual([]);
    expect(seen).toEqual(['start', 'stop']);
  });

  it('runs one piece of work per target at a time, and looks again once it ended when the intent says so', async () => {
    const b = bed();
    let release!: () => void;
    const busyAtLook: boolean[] = [];
    b.next.push(() => [
      { target: 'S1', lookAfter: true, work: () => new Promise<void>((r) => (release = r)) },
      { target: 'S1', work: () => Promise.reject(new Error('never run: S1 is busy')) },
      { target: 'S2', work: () => Promise.resolve() },
    ]);
    b.runner.start(b.action);
    expect(b.look().isBusy('S1')).toBe(true);
    b.next.push((look) => (busyAtLook.push(look.isBusy('S1')), []));
    release();
    await b.runner.settled();
    // The first look started it; the second came when the work ended, the target free then.
    expect(b.looks).toEqual([0, 0]);
    expect(busyAtLook).toEqual([false]);
    expect(b.failures).toEqual([]);
  });

  it('asks the cloud once per question, and looks again at its answer', async () => {
    const b = bed((clock) => new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 2 }, clock));
    b.runner.start(b.action);
    expect(b.look().verdict('U1')).toEqual({ kind: 'ask' });
    expect(b.look().verdict('U1')).toEqual({ kind: 'waiting' });
    await b.runner.settled();
    expect(b.questions()).toBe(1);
    expect(b.looks).toHaveLength(2);
    expect(b.look().verdict('U1')).toEqual({ kind: 'free' });
    // A decision that does not turn on the verdict asks nothing.
    expect(b.look().decide('U2', () => ({ kind: 'none' }))).toEqual({ kind: 'none' });
    expect(b.look().decide('U2', (v) => (v ? { kind: v.kind } : { kind: 'needs-verdict' }))).toEqual({ kind: 'ask' });
    await b.runner.settled();
    expect(b.questions()).toBe(2);
  });

  it('without a gate, never lets a disruption through: the verdict is an unknown', () => {
    const b = bed();
    b.runner.start(b.action);
    expect(b.look().verdict('U1')).toMatchObject({ kind: 'unknown' });
    expect(b.questions()).toBe(0);
  });

  it('keeps when counted work of each target started, for an hour, whether it then failed or not; uncounted work and other targets apart', async () => {
    const b = bed();
    const step = async (intents: Probe[]) => {
      b.next.push(() => intents);
      b.runner.look(b.action);
      await b.runner.settled();
    };
    await step([{ target: 'S1', counted: true, work: () => Promise.reject(new Error('cut')) }]);
    b.time.advance(600_000);
    await step([
      { target: 'S1', work: () => Promise.resolve() },
      { target: 'S2', counted: true },
    ]);
    b.time.advance(1_000);
    await step([{ target: 'S1', counted: true }]);
    expect(b.look().startsOf('S1')).toEqual([0, 601_000]);
    expect(b.look().startsOf('S2')).toEqual([600_000]);
    // One refused while another is in flight: not counted.
    let release!: () => void;
    b.next.push(() => [
      { target: 'S3', counted: true, work: () => new Promise<void>((r) => (release = r)) },
      { target: 'S3', counted: true },
    ]);
    b.runner.look(b.action);
    release();
    await b.runner.settled();
    b.runner.look(b.action);
    expect(b.look().startsOf('S3')).toEqual([601_000]);
    // An hour on, a start is no longer kept.
    b.time.advance(3_599_999);
    b.runner.look(b.action);
    expect(b.look().startsOf('S1')).toEqual([601_000]);
    b.time.advance(601_000);
    b.runner.look(b.action);
    expect(b.look().startsOf('S1')).toEqual([]);
  });

  it("keeps a start longer when its intent says so (recovery's offline cooldown, up to a day), never shorter than the hour, and forgets it after", async () => {
    const b = bed();
    b.next.push(() => [
      { target: 'host', counted: { keepMs: 86_400_000 } },
      { target: 'short', counted: { keepMs: 60_000 } },
    ]);
    b.runner.start(b.action);
    await b.runner.settled();
    b.time.advance(3_600_000);
    // A day's cooldown still counts from it; a minute's is kept the hour, as any counted start.
    expect(b.look().startsOf('host')).toEqual([0]);
    b.runner.look(b.action);
    expect(b.look().startsOf('short')).toEqual([]);
    b.time.advance(86_400_000 - 3_600_000 - 1);
    b.runner.look(b.action);
    expect(b.look().startsOf('host')).toEqual([0]);
    b.time.advance(1);
    b.runner.look(b.action);
    expect(b.look().startsOf('host')).toEqual([]);
  });

  it("keeps the failure count each counted start was made at (recovery's kicks and cycles), and forgets every target whose starts left their window", async () => {
    const b = bed();
    const step = async (intents: Probe[]) => {
      b.next.push(() => intents);
      b.runner.look(b.action);
      await b.runner.settled();
    };
    b.runner.start(b.action);
    await step([{ target: 'kick S1', counted: { failures: 3 } }]);
    b.time.advance(1_000);
    await step([
      { target: 'kick S1', counted: { failures: 6 } },
      { target: 'power-cycle S1', counted: true },
    ]);
    b.runner.look(b.action);
    expect(b.look().countedOf('kick S1')).toEqual([
      { at: 0, failures: 3 },
      { at: 1_000, failures: 6 },
    ]);
    expect(b.look().countedOf('power-cycle S1')).toEqual([{ at: 1_000, failures: 0 }]);
    expect(b.look().startsOf('kick S1')).toEqual([0, 1_000]);
    // A thousand phones kicked once, an hour apart from the last: only the last is kept.
    await step(Array.from({ length: 1_000 }, (_, i) => ({ target: `kick P${i}`, counted: { failures: 1 } })));
    b.time.advance(3_600_000);
    await step([{ target: 'kick LAST', counted: { failures: 1 } }]);
    expect((b.runner as unknown as { counted: { size: number } }).counted.size).toBe(1);
  });

  it("counts each intent's outcome by the feature's counter: what apply resolved with, ok when nothing, failed when it threw (and hands the failure on)", async () => {
    const b = bed();
    const key = counterKey('probe_total', 'probe', ['what', 'result']);
    const error = new Error('the hub tool failed');
    b.next.push(() => [
      { target: 'A', count: { key, labels: ['x'] }, work: () => Promise.resolve('taken') },
      { target: 'B', count: { key, labels: ['x'] }, work: () => Promise.resolve() },
      { target: 'C', count: { key, labels: ['x'] }, work: () => Promise.reject(error) },
    ]);
    b.runner.start(b.action);
    await b.runner.settled();
    expect([b.stats.counter(key).get('x', 'taken'), b.stats.counter(key).get('x', 'ok'), b.stats.counter(key).get('x', 'failed')]).toEqual([1, 1, 1]);
    expect(b.failures).toEqual([error]);
  });

  it('applies an intent without I/O within the look, never marking its target busy or counting it', () => {
    const b = bed();
    const applied: boolean[] = [];
    b.next.push((look) => [{ target: 'S1', now: true, counted: true, work: () => (applied.push(look.isBusy('S1')), undefined as never) }]);
    b.runner.start(b.action);
    expect(applied).toEqual([false]);
    expect(b.look().isBusy('S1')).toBe(false);
    expect(b.look().startsOf('S1')).toEqual([]);
  });

  it('says a refusal once per device, action and reason, counts it, and says it again once the device went and came back', () => {
    const b = bed();
    b.registry.sync('android', new Map([['S1', 'device']]));
    const refuse = (why: string) => (look: ActionLook) => (
      look.refuse({ key: 'android/S1', action: 'kick', why, line: { key: 'probe-refused', fields: {}, text: `no kick: ${why}` } }),
      []
    );
    b.runner.start(b.action);
    for (const why of ['conflict', 'conflict', 'other phone', 'other phone']) {
      b.next.push(refuse(why));
      b.runner.look(b.action);
    }
    b.registry.sync('android', new Map());
    b.runner.look(b.action);
    b.registry.sync('android', new Map([['S1', 'device']]));
    b.next.push(refuse('other phone'));
    b.runner.look(b.action);
    expect(b.stats.counter(ACTIONS_REFUSED).get('kick')).toBe(3);
    expect(b.log.lines().map((l) => l.msg)).toEqual(['no kick: conflict', 'no kick: other phone', 'no kick: other phone']);
  });

  it("notes a hold in the device's message while it lasts, counts and says it once per mark, again once it ended, and drops it with the record", () => {
    const b = bed();
    const held = counterKey('probe_held_total', 'probe', ['reason']);
    b.registry.sync('android', new Map([['S1', 'device']]));
    const key = 'android/S1';
    const hold = (mark: string) => (look: ActionLook) => (
      look.hold({
        key,
        by: 'probe',
        note: `held: ${mark}`,
        mark,
        count: { key: held, labels: ['booked'] },
        line: { key: 'probe-held', fields: {}, text: mark },
      }),
      []
    );
    const release = (ended: boolean) => (look: ActionLook) => (look.release(key, 'probe', ended), []);
    b.runner.start(b.action);
    for (const step of [hold('answer 1'), hold('answer 1'), release(false), hold('answer 1'), hold('answer 2'), release(true), hold('answer 2')]) {
      b.next.push(step);
      b.runner.look(b.action);
    }
    expect(holdNote(b.registry, key, 'probe')).toBe('held: answer 2');
    expect(b.stats.counter(held).get('booked')).toBe(3);
    expect(b.log.lines().map((l) => l.msg)).toEqual(['answer 1', 'answer 2', 'answer 2']);
    b.next.push(release(false));
    b.runner.look(b.action);
    expect(holdNote(b.registry, key, 'probe'), 'its note goes, its mark stays').toBeUndefined();
    b.registry.sync('android', new Map());
    b.registry.sync('android', new Map([['S1', 'device']]));
    b.next.push(hold('answer 2'));
    b.runner.look(b.action);
    expect(b.stats.counter(held).get('booked'), 'a record that comes back is held afresh').toBe(4);
  });

  it('looks once for a command that changes nothing, lets what it started end, and ticks no more', async () => {
    const b = bed();
    let ran = false;
    b.next.push(() => [{ target: 'S1', lookAfter: true, work: () => ((ran = true), Promise.resolve()) }]);
    await b.runner.once(b.action);
    expect(ran).toBe(true);
    expect(b.looks).toEqual([0, 0]);
    b.time.advance(600_000);
    expect(b.looks).toHaveLength(2);
    expect(b.time.pending).toBe(0);
  });
});

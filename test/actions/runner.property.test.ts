// Recovery's decisions on the action runner, on virtual time: random
// listings, failed inventories, cloud answers and adb that answers late or
// fails, checked against the policies that must hold whatever happens.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BookingAnswer } from '../../src/cloud/booking-status.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { loadSettings } from '../../src/config/load.js';
import { BookingGate, bookingGateOf } from '../../src/booking/gate.js';
import { ActionRunner, type Action } from '../../src/actions/runner.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { Recovery } from '../../src/features/recovery/recovery.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { VirtualTime } from '../../src/util/clock.js';
import { captureLogger } from '../log/capture.js';
import { androidPhone } from '../support/devices.js';

const SERIALS = ['S1', 'S2', 'S3'];
const HOUR = 3_600_000;
const KICK_COOLDOWN_S = 60;
const MAX_KICKS = 3;
const CACHE_S = 10;
const PER_MINUTE = 4;

type Step =
  | { kind: 'state'; serial: string; state: 'device' | 'offline' | 'gone' }
  | { kind: 'fail'; serial: string; times: number }
  /** An inventory answers; `as`: with the udid another phone gives (an impostor, issue 35). */
  | { kind: 'answer'; serial: string; as: string | null }
  | { kind: 'booked'; serial: string; booked: boolean | 'error' }
  | { kind: 'wait'; ms: number };

const serial = fc.constantFrom(...SERIALS);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('state' as const), serial, state: fc.constantFrom('device' as const, 'offline' as const, 'gone' as const) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('fail' as const), serial, times: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('answer' as const), serial, as: fc.option(serial, { freq: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('booked' as const), serial, booked: fc.constantFrom(true, false, 'error' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 100, max: 5_000 }), fc.integer({ min: 100, max: 400_000 })) }),
  },
);

const info = (udid: string): DeviceInfo => androidPhone(udid);

/** Recovery on the real registry, gate and runner, a virtual clock, an adb and a cloud that answer after a while. */
function bed() {
  const time = new VirtualTime();
  const clock = time.clock({ seed: 7 });
  const settings = loadSettings({
    env: {
      DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: String(KICK_COOLDOWN_S),
      DEVICE_AGENT_RECOVERY_MAX_KICKS_PER_HOUR: String(MAX_KICKS),
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: String(CACHE_S),
      DEVICE_AGENT_RECOVERY_BOOKING_REQUESTS_PER_MINUTE: String(PER_MINUTE),
    },
  });
  const registry = new DeviceRegistry();
  const booked = new Map<string, boolean | 'error'>();
  /** What the cloud said of each id and when (virtual ms): the last answer a kick relies on. */
  const answers = new Map<string, { at: number; answer: BookingAnswer }>();
  const asked: number[] = [];
  const inFlight = new Map<string, number>();
  /** Every `adb -s SERIAL reconnect`: a kick of a ready phone, or an offline phone's reconnect (one after another, each after the last). */
  const kicks: Array<{ serial: string; at: number; kick: boolean; answer?: { at: number; answer: BookingAnswer } }> = [];
  const later = <T>(ms: number, fn: () => T): Promise<T> =>
    new Promise((resolve, reject) =>
      clock.setTimer(() => {
        try {
          resolve(fn());
        } catch (err) {
          reject(err);
        }
      }, ms),
    );
  const work = (target: string, ms: number, fail = false): Promise<string> => {
    const n = (inFlight.get(target) ?? 0) + 1;
    inFlight.set(target, n);
    expect(n, `one action in flight for ${target}`).toBe(1);
    return later(ms, () => {
      inFlight.set(target, n - 1);
      if (fail) throw new Error('adb did not answer');
      return '';
    });
  };
  /** Another listed phone gives the udid this one gave: no host action may touch it (the oracle, independent of src/actions/trust.ts). */
  const conflicted = (s: string): boolean => {
    const udid = registry.get(`android/${s}`)?.udid;
    return udid !== undefined && registry.list('android').filter((r) => r.udid === udid).length > 1;
  };
  const violations: string[] = [];
  const gate = bookingGateOf(settings, clock);
  const runner = new ActionRunner({
    clock,
    gate,
    booking: {
      ask: (id) => {
        asked.push(time.now);
        return later(1_500, () => {
          const b = booked.get(id) ?? false;
          if (b === 'error') throw new Error('cloud down');
          return { booked: b };
        }).then((answer) => {
          // When the agent has the answer (virtual time runs its timers without the event loop between them).
          answers.set(id, { at: time.now, answer });
          return answer;
        });
      },
    },
  });
  const recovery = new Recovery({
    runner,
    gate,
    adb: {
      platform: 'android',
      reconnectOffline: () => {
        for (const r of registry.list('android'))
          if (r.state === 'offline' && conflicted(r.serial)) violations.push(`host-wide reconnect at ${time.now} reached ${r.serial}`);
        return work('host', 3_000);
      },
      reconnect: (s) => {
        if (conflicted(s)) violations.push(`reconnect of ${s} at ${time.now} while its udid is given twice`);
        // A kick is counted by the runner as it starts, and carried out at once.
        const kick = runner.countedOf(`kick ${s}`).some((start) => start.at === time.now);
        kicks.push({ serial: s, at: time.now, kick, answer: answers.get(registry.get(`android/${s}`)?.udid ?? s) });
        return work(s, 2_000, s === 'S3');
      },
      connect: (a) => work(a, 1_000),
    },
    settings,
    stats: new AgentStats(),
    logger: captureLogger().logger,
    registry,
    booking: undefined,
    clock,
  });
  return { time, clock, registry, recovery, runner, booked, asked, kicks, violations };
}

describe('recovery on the action runner, on virtual time', () => {
  it('kicks only on a fresh "not booked", one action per target at a time, within its cooldown and hourly limit, never while another phone gives its udid, and asks the cloud within its bound', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 80 }), async (steps) => {
        const b = bed();
        // Every phone starts ready: the steps wedge them, drop them, take them offline.
        const states = new Map<string, string>(SERIALS.map((sn) => [sn, 'device']));
        b.registry.sync('android', new Map(states));
        b.recovery.start();
        for (const s of steps) {
          switch (s.kind) {
            case 'state':
              if (s.state === 'gone') states.delete(s.serial);
              else states.set(s.serial, s.state);
              b.registry.sync('android', new Map(states));
              b.recovery.devicesChanged();
              break;
            case 'fail':
              for (let i = 0; i < s.times; i++) {
                b.registry.readings.failed(`android/${s.serial}`, 'missed its deadline', b.clock.wall(), b.clock.monotonic());
                b.recovery.devicesChanged();
              }
              break;
            case 'answer':
              b.registry.readings.answered(`android/${s.serial}`, info(s.as ?? s.serial), b.clock.wall(), b.clock.monotonic());
              break;
            case 'booked':
              b.booked.set(s.serial, s.booked);
              break;
            case 'wait':
              b.time.advance(s.ms);
              break;
          }
          // Let the promises of what fired run, as the event loop would between timers.
          await new Promise((resolve) => setImmediate(resolve));
        }
        await b.recovery.stop();
        // No transport kicked or reconnected while another phone gives its udid (issue 35).
        expect(b.violations).toEqual([]);
        for (const k of b.kicks) {
          // Never a disruption without the cloud's "not booked"; a kick goes as it is decided, within the gate's cache.
          expect(k.answer?.answer, `reconnect of ${k.serial} at ${k.at}`).toEqual({ booked: false });
          if (k.kick) expect(k.at - k.answer!.at, `kick of ${k.serial} at ${k.at}`).toBeLessThan(CACHE_S * 1000);
        }
        for (const serial of SERIALS) {
          const at = b.kicks.filter((k) => k.serial === serial && k.kick).map((k) => k.at);
          for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!, `kick cooldown of ${serial}`).toBeGreaterThanOrEqual(KICK_COOLDOWN_S * 1000);
          for (const t of at) expect(at.filter((u) => u > t - HOUR && u <= t).length, `kicks of ${serial} in an hour`).toBeLessThanOrEqual(MAX_KICKS);
        }
        for (const t of b.asked) expect(b.asked.filter((u) => u > t - 60_000 && u <= t).length, 'status requests a minute').toBeLessThanOrEqual(PER_MINUTE);
      }),
      { numRuns: 200 },
    );
  });
});

describe('ActionRunner', () => {
  it('looks at an action at most tickMs after its last look, and never after it is stopped', () => {
    const time = new VirtualTime();
    const looks: number[] = [];
    const runner = new ActionRunner({ clock: time.clock(), booking: undefined });
    const action: Action = { name: 'a', tickMs: 2_000, look: () => looks.push(time.now) };
    runner.start(action);
    time.advance(1_500);
    runner.devicesChanged();
    time.advance(5_000);
    expect(looks).toEqual([0, 1_500, 3_500, 5_500]);
    runner.stop(action);
    runner.devicesChanged();
    runner.look(action);
    time.advance(10_000);
    expect(looks).toHaveLength(4);
    expect(time.pending).toBe(0);
  });

  it('runs one piece of work per target at a time, and asks the cloud once per question, looking again at its answer', async () => {
    const time = new VirtualTime();
    const clock = time.clock();
    const gate = new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 2 }, clock);
    let questions = 0;
    const runner = new ActionRunner({ clock, gate, booking: { ask: () => (questions++, Promise.resolve({ booked: false })) } });
    let looks = 0;
    const action: Action = { name: 'a', tickMs: 60_000, look: () => void looks++ };
    runner.start(action);
    let release!: () => void;
    expect(runner.run('S1', () => new Promise<void>((r) => (release = r)))).toBe(true);
    expect(runner.run('S1', () => Promise.resolve())).toBe(false);
    expect(runner.run('S2', () => Promise.resolve())).toBe(true);
    expect(runner.verdict('U1', action)).toEqual({ kind: 'ask' });
    expect(runner.verdict('U1', action)).toEqual({ kind: 'waiting' });
    release();
    await runner.settled();
    expect(questions).toBe(1);
    expect(looks).toBe(2);
    expect(runner.verdict('U1', action)).toEqual({ kind: 'free' });
    expect(runner.run('S1', () => Promise.resolve())).toBe(true);
  });

  it('marks a target busy while its work runs, and looks again with `then` once it is free, so a decision waiting on it is made at once', async () => {
    const time = new VirtualTime();
    const runner = new ActionRunner({ clock: time.clock(), booking: undefined });
    const busyAtLook: boolean[] = [];
    const action: Action = { name: 'a', tickMs: 60_000, look: () => void busyAtLook.push(runner.isBusy('S1')) };
    runner.start(action);
    let release!: () => void;
    runner.run('S1', () => new Promise<void>((r) => (release = r)), action);
    expect(runner.isBusy('S1')).toBe(true);
    expect(runner.isBusy('S2')).toBe(false);
    release();
    await runner.settled();
    // The first look started the action; the second came when the work ended, the target free then.
    expect(busyAtLook).toEqual([false, false]);
    expect(runner.isBusy('S1')).toBe(false);
  });

  it('keeps when counted work of each target started, for an hour, whether it then failed or not; uncounted work and other targets apart', async () => {
    const time = new VirtualTime();
    const runner = new ActionRunner({ clock: time.clock(), booking: undefined });
    expect(runner.startsOf('S1')).toEqual([]);
    runner.run('S1', () => Promise.reject(new Error('cut')).catch(() => undefined), undefined, true);
    await runner.settled();
    time.advance(600_000);
    runner.run('S1', () => Promise.resolve());
    runner.run('S2', () => Promise.resolve(), undefined, true);
    await runner.settled();
    time.advance(1_000);
    runner.run('S1', () => Promise.resolve(), undefined, true);
    await runner.settled();
    expect(runner.startsOf('S1')).toEqual([0, 601_000]);
    expect(runner.startsOf('S2')).toEqual([600_000]);
    // Refused while one is in flight: not counted.
    let release!: () => void;
    runner.run('S3', () => new Promise<void>((r) => (release = r)), undefined, true);
    runner.run('S3', () => Promise.resolve(), undefined, true);
    release();
    await runner.settled();
    expect(runner.startsOf('S3')).toEqual([601_000]);
    // An hour on, a start is no longer kept.
    time.advance(3_599_999);
    expect(runner.startsOf('S1')).toEqual([601_000]);
    time.advance(601_000);
    expect(runner.startsOf('S1')).toEqual([]);
  });

  it("keeps a start longer when its work says so (recovery's offline cooldown, up to a day), never shorter than the hour, and forgets it after", async () => {
    const time = new VirtualTime();
    const runner = new ActionRunner({ clock: time.clock(), booking: undefined });
    runner.run('host', () => Promise.resolve(), undefined, { keepMs: 86_400_000 });
    runner.run('short', () => Promise.resolve(), undefined, { keepMs: 60_000 });
    await runner.settled();
    time.advance(3_600_000);
    // A day's cooldown still counts from it; a minute's is kept the hour, as any counted start.
    expect(runner.startsOf('host')).toEqual([0]);
    expect(runner.startsOf('short')).toEqual([]);
    time.advance(86_400_000 - 3_600_000 - 1);
    expect(runner.startsOf('host')).toEqual([0]);
    time.advance(1);
    expect(runner.startsOf('host')).toEqual([]);
    // Another counted start drops what no window keeps: nothing of 'host' stays behind.
    runner.run('other', () => Promise.resolve(), undefined, true);
    await runner.settled();
    expect(runner.startsOf('host')).toEqual([]);
  });

  it("keeps the failure count each counted start was made at (recovery's kicks and cycles), and forgets every target whose starts left their window", async () => {
    const time = new VirtualTime();
    const runner = new ActionRunner({ clock: time.clock(), booking: undefined });
    runner.run('kick S1', () => Promise.resolve(), undefined, { failures: 3 });
    await runner.settled();
    time.advance(1_000);
    runner.run('kick S1', () => Promise.resolve(), undefined, { failures: 6 });
    runner.run('power-cycle S1', () => Promise.resolve(), undefined, true);
    await runner.settled();
    expect(runner.countedOf('kick S1')).toEqual([
      { at: 0, failures: 3 },
      { at: 1_000, failures: 6 },
    ]);
    expect(runner.countedOf('power-cycle S1')).toEqual([{ at: 1_000, failures: 0 }]);
    expect(runner.startsOf('kick S1')).toEqual([0, 1_000]);
    // A thousand phones kicked once, an hour apart from the last: only the last is kept.
    for (let i = 0; i < 1_000; i++) runner.run(`kick P${i}`, () => Promise.resolve(), undefined, { failures: 1 });
    await runner.settled();
    time.advance(3_600_000);
    runner.run('kick LAST', () => Promise.resolve(), undefined, { failures: 1 });
    await runner.settled();
    expect((runner as unknown as { counted: { size: number } }).counted.size).toBe(1);
  });
});

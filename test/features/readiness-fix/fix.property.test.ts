// Readiness's fix-it action on the action runner, on virtual time: random
// listings, cloud answers (booked, not booked, down), a person changing
// settings on the phones, phones whose writes do not stick and settings
// calls that take a while, checked against what must hold whatever happens.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BookingAnswer } from '../../../src/cloud/booking-status.js';
import { loadSettings } from '../../../src/config/load.js';
import { bookingGateOf } from '../../../src/booking/gate.js';
import { readinessFixFeature } from '../../../src/features/readiness-fix/feature.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';
import { FIXABLE, HOUR_MS } from '../../../src/features/readiness-fix/policy.js';
import { READINESS_FIXES } from '../../../src/features/readiness-fix/fix.js';
import type { SettingsNamespace, SettingsWriter } from '../../../src/devices/control.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { READINESS_VALUES } from '../../../src/devices/readiness-values.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import { androidPhone } from '../../support/devices.js';
import { writeRefusal } from '../../../src/platforms/android/control.js';
import { readFileSync } from 'node:fs';

const SERIALS = ['F1', 'F2', 'F3'];
/** What readiness.fix may write, and nothing else: the allowed list as namespace/key. */
const ALLOWED = new Set(FIXABLE.map((f) => `${f.namespace}/${f.key}`));
const KEYS = FIXABLE.map((f) => `${f.namespace}/${f.key}`);
/** Each setting at a value that differs from the baseline: where every phone starts. */
const DIFFERING: Record<string, string> = {
  stayAwake: '0',
  windowAnimation: '1.0',
  transitionAnimation: '1.0',
  animatorDuration: '1.0',
  verifyAdbInstalls: '1',
  autoRotate: '1',
};
/** The action's own limits (fix.ts): one fix per 10 minutes, 3 an hour. */
const COOLDOWN_MS = 600_000;
const MAX_PER_HOUR = 3;
/** Phones whose fixes reached the hourly limit: the runs in which that check is read. */
let atLimit = 0;

type Step =
  | { kind: 'state'; serial: string; state: 'device' | 'offline' | 'gone' }
  | { kind: 'answer'; serial: string }
  | { kind: 'booked'; serial: string; booked: boolean | 'error' }
  /** A person (or an update) changes a setting on the phone. */
  | { kind: 'person'; serial: string; key: string; value: string }
  | { kind: 'wait'; ms: number }
  /** The phone cut in the middle of whatever it is asked next: unplugged (until its next state step), or its shell closed on one call. */
  | { kind: 'cut'; serial: string; how: Cut }
  /** A phone on adb, not booked, nobody touching it, read `rounds` times a cooldown or more apart: the case where what did not stick would be written again. */
  | { kind: 'quiet'; serial: string; rounds: number; gapMs: number };

const serial = fc.constantFrom(...SERIALS);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('state' as const), serial, state: fc.constantFrom('device' as const, 'offline' as const, 'gone' as const) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('answer' as const), serial }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('booked' as const), serial, booked: fc.constantFrom(true, false, 'error' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('person' as const), serial, key: fc.constantFrom(...KEYS), value: fc.constantFrom('0', '1', '1.0', '7', 'null') }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), serial, how: fc.constantFrom('gone' as const, 'closed' as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 100, max: 5_000 }), fc.integer({ min: 1_000, max: 900_000 })) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('quiet' as const),
      serial,
      rounds: fc.integer({ min: 2, max: 4 }),
      gapMs: fc.integer({ min: COOLDOWN_MS, max: 2 * COOLDOWN_MS }),
    }),
  },
);

/** One settings call; `failed`: the phone could not answer it (cut). */
type Op = { serial: string; at: number; op: 'get' | 'put'; key: string; failed?: boolean };

/** A phone's adb transport cut (adb answers "device not found" at once, until it is back) or its shell dying in one call (that call fails, the next works). */
type Cut = 'gone' | 'closed';

/** The bound each write's "not booked" must be younger than (policy.ts, ANSWER_MAX_AGE_MS; docs/design/trust.md). */
const ANSWER_BOUND_MS = 3_000;

/** `callMs`: how long each settings call takes on the phones (a phone slow to answer: seconds). */
function bed(notSticking: ReadonlySet<string>, callMs = 250) {
  const time = new VirtualTime();
  const clock = time.clock({ seed: 11 });
  const settings = loadSettings({
    env: { DEVICE_AGENT_READINESS_FIX: 'true', DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '10', DEVICE_AGENT_RECOVERY_BOOKING_REQUESTS_PER_MINUTE: '6' },
  });
  const registry = new DeviceRegistry();
  const booked = new Map<string, boolean | 'error'>();
  /** What the cloud said of each id, with when the agent had it (virtual ms). */
  const answers = new Map<string, Array<{ at: number; answer: BookingAnswer | 'error' }>>();
  /** Each phone's settings, by namespace/key: all differ from the baseline at first. */
  const phones = new Map<string, Map<string, string>>(SERIALS.map((s) => [s, new Map(FIXABLE.map((f) => [`${f.namespace}/${f.key}`, DIFFERING[f.check]!]))]));
  const ops: Op[] = [];
  /** When a person changed a setting: a write that did not stick may be tried again only after one. */
  const changes: Array<{ serial: string; key: string; at: number }> = [];
  const inFlight = new Map<string, number>();
  const violations: string[] = [];
  /** The phones whose calls fail now, and how. */
  const cut = new Map<string, Cut>();
  /** Called once a write has landed on the phone, before its answer: where a test cuts the phone between a write and its read-back. */
  const hooks: { afterPut?: (serial: string, key: string) => void; refuse?: (serial: string, key: string) => string | undefined } = {};
  const later = <T>(ms: number, fn: () => T): Promise<T> =>
    new Promise((resolve, reject) =>
      clock.setTimer(() => {
        try {
          resolve(fn());
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      }, ms),
    );
  const call = async <T>(serial: string, op: 'get' | 'put', namespace: SettingsNamespace, key: string, fn: () => T): Promise<T> => {
    const name = `${namespace}/${key}`;
    const n = (inFlight.get(serial) ?? 0) + 1;
    inFlight.set(serial, n);
    if (n > 1) violations.push(`${n} settings calls at once on ${serial} at ${time.now}`);
    const op$: Op = { serial, at: time.now, op, key: name };
    ops.push(op$);
    if (op === 'put') {
      if (!ALLOWED.has(name)) violations.push(`write of ${name} on ${serial}: not in the allowed list`);
      const id = registry.get(`android/${serial}`)?.udid ?? serial;
      const last = answers.get(id)?.at(-1);
      if (last?.answer === 'error' || (last?.answer as { booked?: boolean } | undefined)?.booked !== false)
        violations.push(`write of ${name} on ${serial} at ${time.now}: the cloud last said ${JSON.stringify(last?.answer)}`);
      const arrived = arrivals.get(id)?.at(-1);
      if (arrived !== undefined && time.now - arrived >= ANSWER_BOUND_MS)
        violations.push(`write of ${name} on ${serial} at ${time.now}: on a "not booked" that reached the agent ${time.now - arrived} ms before`);
    }
    return later(callMs, () => {
      inFlight.set(serial, n - 1);
      const how = cut.get(serial);
      if (how) op$.failed = true;
      if (how === 'gone') throw new Error(`device '${serial}' not found`);
      if (how === 'closed') {
        cut.delete(serial);
        throw new Error(`the shell session of ${serial} closed before its end`);
      }
      const out = fn();
      if (op === 'put') hooks.afterPut?.(serial, name);
      return out;
    });
  };
  const writer: SettingsWriter = {
    platform: 'android',
    refusal: writeRefusal,
    getSetting: (s, ns, key) => call(s, 'get', ns, key, () => phones.get(s)!.get(`${ns}/${key}`)),
    putSetting: (s, ns, key, value) =>
      call(s, 'put', ns, key, () => {
        // A phone whose maker's policy refuses adb's writes prints the framework's refusal and keeps its value.
        const refused = hooks.refuse?.(s, `${ns}/${key}`);
        if (refused !== undefined) return refused;
        if (!notSticking.has(`${ns}/${key}`)) phones.get(s)!.set(`${ns}/${key}`, value);
        return '';
      }),
  };
  const gate = bookingGateOf(settings, clock);
  // When each answer reached the agent (the gate was handed it): what a write's freshness is counted from.
  const arrivals = new Map<string, number[]>();
  const handOver = gate.answered.bind(gate);
  gate.answered = (id, answer) => {
    arrivals.set(id, [...(arrivals.get(id) ?? []), time.now]);
    handOver(id, answer);
  };
  const booking = {
    ask: (id: string) =>
      later(1_500, () => {
        const b = booked.get(id) ?? false;
        const list = answers.get(id) ?? [];
        answers.set(id, list);
        list.push({ at: time.now, answer: b === 'error' ? 'error' : { booked: b } });
        if (b === 'error') throw new Error('cloud down');
        return { booked: b };
      }),
  };
  const stats = new AgentStats();
  /** The phone's inventory answers: readiness publishes the values it read (an unset one at its default), as the daemon's readiness feature does. */
  const inventory = (serial: string): void => {
    const values = phones.get(serial)!;
    registry.readings.answered(`android/${serial}`, androidPhone(serial), clock.wall(), clock.monotonic());
    const read = Object.fromEntries(
      FIXABLE.flatMap((f) => {
        const v = values.get(`${f.namespace}/${f.key}`);
        return v === undefined || v === 'null' ? [] : [[f.check, v] as const];
      }),
    );
    registry.facet(READINESS_VALUES).set(`android/${serial}`, read);
  };
  const log = captureLogger();
  const fix = actionBed(readinessFixFeature, featureContext({ phones: writer, settings, stats, logger: log.logger, registry, clock }), { gate, booking });
  return { time, clock, registry, fix, booked, answers, arrivals, phones, ops, changes, violations, stats, inventory, cut, hooks, log };
}

describe('readiness.fix on the action runner, on virtual time', () => {
  it('writes only allowed settings, only on a fresh "not booked", one call at a time per phone, each write read back, within its cooldown and hourly limit, and not again what did not stick until it changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), fc.subarray(KEYS, { maxLength: 2 }), async (steps, notSticking) => {
        const b = bed(new Set(notSticking));
        const states = new Map<string, string>(SERIALS.map((sn) => [sn, 'device']));
        b.registry.sync('android', new Map(states));
        for (const sn of SERIALS) b.inventory(sn);
        b.fix.start();
        const flush = () => new Promise((resolve) => setImmediate(resolve));
        /** When a phone left adb's list: its record went, and what did not stick on it with it (policy.ts, FixEntry). */
        const left: Array<{ serial: string; at: number }> = [];
        for (const s of steps) {
          switch (s.kind) {
            case 'cut':
              b.cut.set(s.serial, s.how);
              break;
            case 'state':
              // Whatever its state now, the phone answers again (back on adb, or gone from it).
              b.cut.delete(s.serial);
              if (s.state === 'gone' && states.has(s.serial)) left.push({ serial: s.serial, at: b.time.now });
              if (s.state === 'gone') states.delete(s.serial);
              else states.set(s.serial, s.state);
              b.registry.sync('android', new Map(states));
              b.fix.devicesChanged();
              break;
            case 'answer':
              if (states.get(s.serial) === 'device') b.inventory(s.serial);
              b.fix.devicesChanged();
              break;
            case 'booked':
              b.booked.set(s.serial, s.booked);
              break;
            case 'person':
              b.phones.get(s.serial)!.set(s.key, s.value);
              b.changes.push({ serial: s.serial, key: s.key, at: b.time.now });
              break;
            case 'wait':
              // In slices, letting the promises of what fired run between them as the event loop would.
              for (let left = s.ms; left > 0; left -= 1_000) {
                b.time.advance(Math.min(1_000, left));
                await flush();
              }
              break;
            case 'quiet':
              b.cut.delete(s.serial);
              states.set(s.serial, 'device');
              b.registry.sync('android', new Map(states));
              b.booked.set(s.serial, false);
              for (let r = 0; r < s.rounds; r++) {
                b.inventory(s.serial);
                b.fix.devicesChanged();
                for (let left = s.gapMs; left > 0; left -= 5_000) {
                  b.time.advance(Math.min(5_000, left));
                  await flush();
                }
              }
              break;
          }
          await flush();
        }
        // Stopped, so that no fix starts; the one in flight ends, with its read-backs.
        await b.fix.stop();
        for (let i = 0; i < 60; i++) {
          b.time.advance(500);
          await flush();
        }
        expect(b.violations).toEqual([]);
        for (const sn of SERIALS) {
          const mine = b.ops.filter((o) => o.serial === sn);
          // Every write is followed by the read-back of the same setting, before anything else on the phone.
          mine.forEach((o, i) => {
            if (o.op === 'put') expect(mine[i + 1], `read-back of ${o.key} on ${sn} at ${o.at}`).toMatchObject({ op: 'get', key: o.key });
          });
          // A fix starts at a write that does not follow a read-back: at most one per cooldown, MAX_PER_HOUR an hour.
          const starts = mine.filter((o, i) => o.op === 'put' && !(i >= 2 && mine[i - 1]!.op === 'get' && mine[i - 2]!.op === 'put')).map((o) => o.at);
          for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!, `fix cooldown of ${sn}`).toBeGreaterThanOrEqual(COOLDOWN_MS);
          for (const t of starts) expect(starts.filter((u) => u > t - HOUR_MS && u <= t).length, `fixes of ${sn} in an hour`).toBeLessThanOrEqual(MAX_PER_HOUR);
          if (starts.some((t) => starts.filter((u) => u > t - HOUR_MS && u <= t).length === MAX_PER_HOUR)) atLimit++;
          // A write that did not stick is not made again until the value changed (a person's step in between) or the phone
          // left adb and came back (its record went: said in the docs, "leaves adb and comes back").
          for (const key of notSticking) {
            // Only a write the phone took and read back says "did not stick": one cut before its read-back answered says nothing.
            const puts = mine.filter((o, i) => o.op === 'put' && o.key === key && !o.failed && mine[i + 1]?.failed !== true).map((o) => o.at);
            const between = (at: number, i: number) => at >= puts[i - 1]! && at <= puts[i]!;
            for (let i = 1; i < puts.length; i++)
              expect(
                b.changes.some((c) => c.serial === sn && c.key === key && between(c.at, i)) || left.some((l) => l.serial === sn && between(l.at, i)),
                `${key} written again on ${sn} at ${puts[i]} though it did not stick at ${puts[i - 1]}, nobody changed it and it never left adb`,
              ).toBe(true);
          }
        }
      }),
      { numRuns: 150 },
    );
    // The hourly limit's check was read (without the quiet step: in 2 phones of 450, and not in a run with the limit taken as >).
    expect(atLimit).toBeGreaterThan(0);
  }, 120_000);

  it('on a cloud that says not booked, puts every differing setting back within a minute, and counts it', async () => {
    const b = bed(new Set(['global/verifier_verify_adb_installs']));
    b.registry.sync('android', new Map(SERIALS.map((sn) => [sn, 'device'])));
    for (const sn of SERIALS) b.inventory(sn);
    b.fix.start();
    for (let i = 0; i < 120; i++) {
      b.time.advance(500);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const sn of SERIALS)
      expect(Object.fromEntries(b.phones.get(sn)!)).toEqual({
        'global/stay_on_while_plugged_in': '7',
        'global/window_animation_scale': '0',
        'global/transition_animation_scale': '0',
        'global/animator_duration_scale': '0',
        'global/verifier_verify_adb_installs': '1',
        'system/accelerometer_rotation': '0',
      });
    expect(b.stats.counter(READINESS_FIXES).get('not_taken')).toBe(3);
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  it('a phone that stays awake on AC only (1: asleep on USB) is put back to 7, what Developer options writes, with the USB bit; a row it does not have is written only where its reader has a fixed default', async () => {
    const b = bed(new Set());
    const settings = b.phones.get('F1')!;
    for (const f of FIXABLE) settings.set(`${f.namespace}/${f.key}`, f.check === 'stayAwake' ? '1' : '0');
    // No window_animation_scale row: `settings get` prints null, which is unread (its reader's default is its last value), and differs from nothing.
    settings.set('global/window_animation_scale', 'null');
    b.registry.sync('android', new Map([['F1', 'device']]));
    b.inventory('F1');
    b.fix.start();
    for (let i = 0; i < 60; i++) {
      b.time.advance(500);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(b.ops.filter((o) => o.op === 'put').map((o) => o.key)).toEqual(['global/stay_on_while_plugged_in']);
    expect(settings.get('global/stay_on_while_plugged_in')).toBe('7');
    expect(settings.get('global/window_animation_scale')).toBe('null');
    expect(b.stats.counter(READINESS_FIXES).get('fixed')).toBe(1);
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  it('a GMS phone that never wrote verifier_verify_adb_installs (settings get: null, which PackageManagerService reads as 1) gets it put back to 0', async () => {
    const b = bed(new Set());
    const settings = b.phones.get('F1')!;
    for (const f of FIXABLE) settings.set(`${f.namespace}/${f.key}`, f.check === 'stayAwake' ? '7' : '0');
    settings.set('global/verifier_verify_adb_installs', 'null');
    b.registry.sync('android', new Map([['F1', 'device']]));
    // The inventory's list had no row either: readiness publishes the framework's default for it.
    b.registry.readings.answered('android/F1', androidPhone('F1'), b.clock.wall(), b.clock.monotonic());
    b.registry
      .facet(READINESS_VALUES)
      .set('android/F1', { stayAwake: '7', windowAnimation: '0', transitionAnimation: '0', animatorDuration: '0', verifyAdbInstalls: '1', autoRotate: '0' });
    b.fix.start();
    for (let i = 0; i < 60; i++) {
      b.time.advance(500);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(b.ops.filter((o) => o.op === 'put').map((o) => o.key)).toEqual(['global/verifier_verify_adb_installs']);
    expect(settings.get('global/verifier_verify_adb_installs')).toBe('0');
    expect(b.stats.counter(READINESS_FIXES).get('fixed')).toBe(1);
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  it('a phone whose maker refuses adb\'s writes (OnePlus: a SecurityException until "Disable permission monitoring" is on) is counted refused, said once in one line naming the settings and the toggle, and written again after the cooldown', async () => {
    const recorded = readFileSync(
      new URL('../../platforms/android/inventory/parsers/fixtures/settings-put/oneplus8pro-android12-scrcpy2612.txt', import.meta.url),
      'utf8',
    );
    const b = bed(new Set());
    let refusing = true;
    b.hooks.refuse = (_serial, key) => (refusing && key.startsWith('global/') ? recorded : undefined);
    const settings = b.phones.get('F1')!;
    for (const f of FIXABLE) settings.set(`${f.namespace}/${f.key}`, f.check === 'stayAwake' ? '1' : '0');
    b.registry.sync('android', new Map([['F1', 'device']]));
    b.registry.readings.answered('android/F1', androidPhone('F1', { brandName: 'OnePlus' }), b.clock.wall(), b.clock.monotonic());
    b.registry
      .facet(READINESS_VALUES)
      .set('android/F1', { stayAwake: '1', windowAnimation: '0', transitionAnimation: '0', animatorDuration: '0', verifyAdbInstalls: '0', autoRotate: '0' });
    b.fix.start();
    const run = async (ms: number) => {
      for (let t = 0; t < ms; t += 500) {
        b.time.advance(500);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await run(30_000);
    expect(settings.get('global/stay_on_while_plugged_in')).toBe('1');
    expect(b.stats.counter(READINESS_FIXES).get('refused')).toBe(1);
    expect(b.stats.counter(READINESS_FIXES).get('not_taken')).toBe(0);
    const said = b.log.lines().filter((l) => String(l.msg).includes('refused to write'));
    expect(said.map((l) => [l.level, l.msg])).toEqual([
      [
        'warn',
        'device F1: the phone refused to write global stay_on_while_plugged_in (SecurityException: Permission denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS): ' +
          'its maker keeps adb from changing settings until a developer toggle is on; turn on Developer options > Disable permission monitoring on, then USB debugging off and on again. The agent writes it again after its cooldown',
      ],
    ]);
    expect(b.log.lines().filter((l) => String(l.msg).includes('did not stick'))).toEqual([]);
    // Refused again after the cooldown: counted, not said again.
    await run(11 * 60_000);
    expect(b.stats.counter(READINESS_FIXES).get('refused')).toBe(2);
    expect(b.log.lines().filter((l) => String(l.msg).includes('refused to write'))).toHaveLength(1);
    // A person turns the toggle on: the next fix puts it back.
    refusing = false;
    await run(11 * 60_000);
    expect(settings.get('global/stay_on_while_plugged_in')).toBe('7');
    expect(b.stats.counter(READINESS_FIXES).get('fixed')).toBe(1);
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  // A phone slow to answer (2.5 s a settings call): a write and its read-back take 5 s, six of them half a minute. Each
  // write rests on a "not booked" younger than the bound: the cloud is asked again before each write whose answer is older.
  it('on a phone slow to answer (2.5 s a call), rests each write on a "not booked" younger than 3 s, asking again before each; booked meanwhile: no more writes, said once', async () => {
    const b = bed(new Set(), 2_500);
    b.registry.sync('android', new Map([['F1', 'device']]));
    b.inventory('F1');
    b.fix.start();
    const settle = async (ms: number) => {
      for (let left = ms; left > 0; left -= 250) {
        b.time.advance(250);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    // The read (six calls), the first answer, the first write: booked from its read-back on.
    for (let i = 0; i < 400 && !b.ops.some((o) => o.op === 'put'); i++) await settle(250);
    expect(b.ops.filter((o) => o.op === 'put')).toHaveLength(1);
    b.booked.set('F1', true);
    await settle(60_000);
    const puts = b.ops.filter((o) => o.op === 'put');
    expect(puts.map((o) => o.key)).toEqual(['global/stay_on_while_plugged_in']);
    // Asked again before the second write, which was not made.
    const answers = b.answers.get('F1')!;
    expect(answers.map((a) => a.answer)).toEqual([{ booked: false }, { booked: true }]);
    expect(answers[1]!.at).toBeGreaterThan(puts[0]!.at);
    expect(b.stats.counter(READINESS_FIXES).get('refused')).toBe(1);
    expect(b.log.lines().map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(
        /^device F1: readiness settings fix stopped before writing window_animation_scale, transition_animation_scale, animator_duration_scale, verifier_verify_adb_installs, accelerometer_rotation: asked again \(its last "not booked" was older than 3 s\), the cloud says it is booked; put back before: stay_on_while_plugged_in 0 → 7$/,
      ),
    );
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  it('on a phone slow to answer, with the cloud saying not booked throughout: every setting put back, each write on its own fresh answer', async () => {
    const b = bed(new Set(), 2_500);
    b.registry.sync('android', new Map([['F1', 'device']]));
    b.inventory('F1');
    b.fix.start();
    for (let i = 0; i < 400; i++) {
      b.time.advance(250);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const puts = b.ops.filter((o) => o.op === 'put');
    expect(puts).toHaveLength(FIXABLE.length);
    const answers = b.answers.get('F1')!;
    expect(answers.map((a) => a.answer)).toEqual(puts.map(() => ({ booked: false })));
    const arrivals = b.arrivals.get('F1')!;
    for (const put of puts) expect(put.at - arrivals.filter((at) => at <= put.at).at(-1)!).toBeLessThan(ANSWER_BOUND_MS);
    expect(b.stats.counter(READINESS_FIXES).get('fixed')).toBe(1);
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  it('asks the cloud and writes as soon as its read ends, not at its next tick: the runner looks again once the phone is free', async () => {
    const b = bed(new Set());
    b.registry.sync('android', new Map([['F1', 'device']]));
    b.inventory('F1');
    b.fix.start();
    for (let i = 0; i < 100 && !b.ops.some((o) => o.op === 'put'); i++) {
      b.time.advance(100);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Six reads of 250 ms, then the cloud's answer after 1.5 s: the first write at 3 s, before the 5 s tick.
    const firstPut = b.ops.find((o) => o.op === 'put');
    expect(firstPut?.at).toBeLessThan(5_000);
    await b.fix.stop();
  });

  // The phone boundary, "closes mid-stream": the phone unplugged (or its
  // transport dropped) between a `settings put` and its read-back, or its
  // shell dying in the middle of a write. What the phone holds is then not
  // known: neither fixed nor "did not stick" (which would keep the setting
  // from being written again until a person changes it), and nothing more is
  // asked of the phone in that fix.
  it('a phone gone from adb for good in the middle of a fix (its entry dropped meanwhile): the fix ends without a crash, counted interrupted', async () => {
    const b = bed(new Set());
    b.registry.sync('android', new Map([['F1', 'device']]));
    b.inventory('F1');
    b.hooks.afterPut = (sn) => {
      if (b.cut.has(sn)) return;
      b.cut.set(sn, 'gone');
      b.registry.sync('android', new Map());
      b.fix.devicesChanged();
    };
    b.fix.start();
    for (let i = 0; i < 60; i++) {
      b.time.advance(500);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(b.ops.filter((o) => o.op === 'put')).toHaveLength(1);
    expect(b.stats.counter(READINESS_FIXES).get('interrupted')).toBe(1);
    expect(b.violations).toEqual([]);
    await b.fix.stop();
  });

  for (const how of ['gone', 'closed'] as const) {
    it(`a phone cut (${how === 'gone' ? 'unplugged' : 'its shell closed'}) between a write and its read-back: no crash, the fix stops there, counted interrupted, one info line; fixed once it answers again, within the cooldown`, async () => {
      const b = bed(new Set());
      const settle = async (ms: number) => {
        for (let left = ms; left > 0; left -= 500) {
          b.time.advance(500);
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      b.registry.sync('android', new Map([['F1', 'device']]));
      b.inventory('F1');
      let cutAt: number | undefined;
      b.hooks.afterPut = (sn) => {
        // The first write lands; the phone is cut before its read-back.
        if (cutAt !== undefined) return;
        cutAt = b.time.now;
        b.cut.set(sn, how);
        if (how === 'gone') b.registry.sync('android', new Map([['F1', 'offline']]));
      };
      b.fix.start();
      await settle(30_000);
      expect(cutAt).toBeDefined();
      const during = b.ops.filter((o) => o.at >= cutAt!);
      // The read-back of the write that landed, and nothing after it: no other write tried on a phone that cannot answer.
      expect(during.map((o) => o.op)).toEqual(['get']);
      expect(b.stats.counter(READINESS_FIXES).get('fixed')).toBe(0);
      expect(b.stats.counter(READINESS_FIXES).get('not_taken')).toBe(0);
      expect(b.stats.counter(READINESS_FIXES).get('interrupted')).toBe(1);
      const lines = b.log.lines().filter((l) => l.level !== 'debug');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'info',
        msg: expect.stringMatching(/^device F1: readiness settings fix cut short: the phone could not be asked \(/),
      });
      expect(String(lines[0]!.msg)).toMatch(
        /\); not confirmed: stay_on_while_plugged_in; not tried: window_animation_scale, transition_animation_scale, animator_duration_scale, verifier_verify_adb_installs, accelerometer_rotation; read again once it answers$/,
      );

      // Two minutes: unplugged, not one more call on it; its shell cut once, the phone still listed, its settings read again after a minute.
      const calls = b.ops.length;
      await settle(120_000);
      const meanwhile = b.ops.slice(calls);
      if (how === 'gone') expect(meanwhile).toEqual([]);
      else {
        expect(meanwhile.map((o) => o.op)).toEqual(Array.from({ length: 6 }, () => 'get'));
        expect(meanwhile[0]!.at - cutAt!).toBeGreaterThanOrEqual(60_000);
      }

      // Back: the first write had landed, the others had not. They are put back (not taken for "did not stick"),
      // but not before the cooldown of the fix that was cut: a phone that drops at every write is not written in a storm.
      b.cut.delete('F1');
      b.registry.sync('android', new Map([['F1', 'device']]));
      b.inventory('F1');
      b.fix.devicesChanged();
      await settle(900_000);
      expect(Object.fromEntries(b.phones.get('F1')!)).toEqual({
        'global/stay_on_while_plugged_in': '7',
        'global/window_animation_scale': '0',
        'global/transition_animation_scale': '0',
        'global/animator_duration_scale': '0',
        'global/verifier_verify_adb_installs': '0',
        'system/accelerometer_rotation': '0',
      });
      expect(b.stats.counter(READINESS_FIXES).get('fixed')).toBe(1);
      const puts = b.ops.filter((o) => o.op === 'put').map((o) => o.at);
      const firstFix = puts[0]!;
      const secondFix = puts.find((t) => t > cutAt!)!;
      expect(secondFix - firstFix).toBeGreaterThanOrEqual(COOLDOWN_MS);
      expect(b.violations).toEqual([]);
      expect(b.log.lines().filter((l) => l.level === 'warn')).toEqual([]);
      await b.fix.stop();
    });
  }
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../support/property-runs.js';
import { FlapLog } from '../../src/devices/flap-log.js';
import { FLAP_RULES } from '../../src/devices/flapping.js';
import { createLogger } from '../../src/log/logger.js';
import { VirtualTime } from '../support/virtual-time.js';

// A flapping phone's transitions summed up (issue 34, finding 7), on virtual
// time, on random plug/unplug/offline sequences of a few phones over hours:
// - every phone with more than `threshold` changes within a window is named
//   in a line saying it changed state N times and whom to suspect, and no
//   other phone is;
// - per phone, at most 2 x threshold + 5 lines at info or above in any
//   summary interval (two whole cycles of "its first changes, flapping,
//   settled" fit in one), and while it flaps at most one line per interval;
// - each phone that flapped gets one settled line, once it has been quiet
//   for a window, naming its state then;
// - every change is a 'device changed' line, at info or (while its phone
//   flaps) at debug.
// Three phones at most here: then the per-cause rate limiter behind the
// lines (10 a minute, src/log/limited.ts) never holds one back, so the counts
// are the ledger's own (3 phones x 3 changes at info in a minute). Many
// phones at once, beyond the limiter, are the last property's.

const { threshold: T, windowMs: W, summaryMs: S } = FLAP_RULES;
const PHONES = ['R58M1234', 'emulator-5554', '10.0.0.7:5555'];
const STATES = ['device', 'offline', 'unauthorized', undefined] as const;

interface Step {
  phone: number;
  to: (typeof STATES)[number];
  dt: number;
}

const dt = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 10_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 120_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 20 * 60_000 }) },
);
const one: fc.Arbitrary<Step[]> = fc.record({ phone: fc.integer({ min: 0, max: PHONES.length - 1 }), to: fc.constantFrom(...STATES), dt }).map((s) => [s]);
// A boot loop or a bad cable: one phone changing state again and again, for up to hours.
const loop: fc.Arbitrary<Step[]> = fc
  .record({
    phone: fc.integer({ min: 0, max: PHONES.length - 1 }),
    count: fc.integer({ min: 2, max: 80 }),
    everyMs: fc.integer({ min: 0, max: 4 * 60_000 }),
    dt,
  })
  .map(({ phone, count, everyMs, dt }) =>
    Array.from({ length: count }, (_, i): Step => ({ phone, to: i % 2 ? 'offline' : 'device', dt: i === 0 ? dt : everyMs })),
  );
const steps: fc.Arbitrary<Step[]> = fc
  .array(fc.oneof({ weight: 4, arbitrary: one }, { weight: 1, arbitrary: loop }), { minLength: 1, maxLength: 60 })
  .map((parts) => parts.flat());

interface Line {
  at: number;
  level: string;
  msg: string;
  serial?: string;
  state?: string;
  changes?: number;
  /** A limiter's summary: the cause of the lines it held back, how many, some of their phones. */
  cause?: string;
  suppressed?: number;
  subjects?: string[];
}

function run(steps: Step[], phones: readonly string[] = PHONES) {
  const time = new VirtualTime();
  const clock = time.clock();
  const lines: Line[] = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: { write: (l: string) => lines.push({ ...(JSON.parse(l) as Line), at: time.now }) },
  });
  const flaps = new FlapLog(logger, clock);
  const changes = new Map<string, number[]>(phones.map((p) => [p, []]));
  const history = new Map<string, Array<{ at: number; to: string | undefined }>>(phones.map((p) => [p, []]));
  const last = new Map<string, string | undefined>();
  for (const s of steps) {
    time.advance(s.dt);
    const serial = phones[s.phone]!;
    changes.get(serial)!.push(time.now);
    history.get(serial)!.push({ at: time.now, to: s.to });
    flaps.changed([{ serial, from: last.get(serial), to: s.to }]);
    last.set(serial, s.to);
  }
  time.advance(W + 1);
  const end = time.now;
  flaps.stop();
  return { lines, changes, history, end };
}

const flappingLine = (l: Line) =>
  l.level === 'warn' && /^device .* changed state \d+ times in the last \d+ min \(now [a-z]+\): the phone or its (USB|network) link/.test(l.msg);
const settledLine = (l: Line) => l.level === 'info' && /^device .* settled: no state change for 5 min \(now [a-z]+\)/.test(l.msg);

describe('a flapping phone summed up (FlapLog)', () => {
  it('names every flapping phone, bounds its lines per interval, says when it settled', () => {
    fc.assert(
      fc.property(steps, (sequence) => {
        const { lines, changes, history } = run(sequence);
        for (const serial of PHONES) {
          const times = changes.get(serial)!;
          const mine = lines.filter((l) => l.serial === serial);
          // The oracle: more than T changes within one window, counted here from the steps.
          const flapped = times.some((t, i) => i + T < times.length && times[i + T]! - t < W);
          const flapLines = mine.filter(flappingLine);
          const settled = mine.filter(settledLine);
          expect(flapLines.length > 0).toBe(flapped);
          for (const l of flapLines) {
            expect(l.msg.startsWith(`device ${serial} changed state`)).toBe(true);
            expect(l.msg).toContain(serial.includes(':') ? 'its network link' : 'its USB link');
            expect(l.msg).toContain('boot-looping');
          }
          // Every run of flapping ends in one settled line, a window after the phone's last change of the run.
          const starts = mine.filter((l) => flappingLine(l) && /further changes are logged at debug/.test(l.msg));
          expect(settled.length).toBe(starts.length);
          for (const s of settled) {
            // (A change at the settled line's instant came after it: the ledger sums up before it notes.)
            const before = history.get(serial)!.filter((h) => h.at < s.at);
            expect(s.at - before.at(-1)!.at).toBeGreaterThanOrEqual(W);
            // It names the phone's state then.
            const then = before.at(-1)!.to ?? 'unplugged';
            expect(s.state).toBe(then);
            expect(s.msg).toContain(`(now ${then})`);
          }
          // At info or above: at most 2T + 5 lines in any summary interval.
          const loud = mine.filter((l) => l.level !== 'debug').map((l) => l.at);
          for (const t of loud) expect(loud.filter((u) => u >= t && u < t + S).length).toBeLessThanOrEqual(2 * T + 5);
          // While it flaps (from a flapping line to its settled line): one line per interval.
          const runLines = mine.filter((l) => flappingLine(l) || settledLine(l));
          for (let i = 1; i < runLines.length; i++)
            if (!settledLine(runLines[i - 1]!) && !settledLine(runLines[i]!)) expect(runLines[i]!.at - runLines[i - 1]!.at).toBeGreaterThanOrEqual(S);
          // Every change is a line, at info or quietly at debug; the debug ones only while the phone flaps.
          const changed = mine.filter((l) => l.msg === 'device changed');
          expect(changed.length).toBe(times.length);
          if (!flapped) expect(changed.every((l) => l.level === 'info')).toBe(true);
        }
      }),
      propertyRuns(150),
    );
  });

  it('a phone flapping all day: its first changes, one line, then one line per interval with the count, then settled', () => {
    const steps: Step[] = Array.from({ length: 24 * 60 * 2 }, (_, i) => ({ phone: 0, to: i % 2 ? 'offline' : 'device', dt: 30_000 }));
    const { lines } = run(steps);
    const loud = lines.filter((l) => l.level !== 'debug');
    // 3 changes at info, the flapping line, one summary per 10 min for a day, the settled line.
    expect(loud.length).toBeLessThanOrEqual(T + 1 + (24 * 60) / (S / 60_000) + 1);
    expect(loud.length).toBeGreaterThanOrEqual(T + 1 + (24 * 60) / (S / 60_000) - 2);
    const summaries = loud.filter(flappingLine).slice(1);
    // A change every 30 s: 20 in each 10 min (19 in the first: the one at its end comes just after it).
    expect(summaries.slice(0, -1).map((l) => l.changes)).toEqual([19, ...Array<number>(summaries.length - 2).fill(20)]);
    expect(summaries.at(-1)!.changes).toBeLessThanOrEqual(20);
    expect(loud.at(-1)!.msg).toMatch(/^device R58M1234 settled: .*it changed state 2880 times over 1440 min while flapping$/);
  });

  // A hub that resets many phones at once: more flapping lines, changes and
  // settled lines a minute than the limiter lets through. What it holds back
  // is summed up a window later on the same (virtual) timers, naming the
  // phones: up to 20 a summary, so with 16 phones every one is named.
  it('many phones flapping beyond the limiter: every flapping phone still named, in its line or a summary a window later; every change counted', () => {
    const MANY = Array.from({ length: 16 }, (_, i) => (i % 4 === 3 ? `10.0.0.${i}:5555` : `R58M${String(i).padStart(4, '0')}`));
    const anyOne: fc.Arbitrary<Step[]> = fc.record({ phone: fc.integer({ min: 0, max: MANY.length - 1 }), to: fc.constantFrom(...STATES), dt }).map((s) => [s]);
    // Many phones changing together, again and again (a hub's ports reset).
    const storm: fc.Arbitrary<Step[]> = fc
      .record({
        from: fc.integer({ min: 0, max: MANY.length - 1 }),
        width: fc.integer({ min: 4, max: MANY.length }),
        count: fc.integer({ min: 2, max: 12 }),
        everyMs: fc.integer({ min: 0, max: 90_000 }),
        dt,
      })
      .map(({ from, width, count, everyMs, dt }) =>
        Array.from({ length: count }, (_, i) =>
          Array.from({ length: width }, (_, k): Step => ({
            phone: (from + k) % MANY.length,
            to: i % 2 ? 'offline' : 'device',
            dt: k > 0 ? 0 : i === 0 ? dt : everyMs,
          })),
        ).flat(),
      );
    const sequences = fc
      .array(fc.oneof({ weight: 2, arbitrary: anyOne }, { weight: 1, arbitrary: storm }), { minLength: 1, maxLength: 25 })
      .map((parts) => parts.flat());
    let heldBack = 0;
    fc.assert(
      fc.property(sequences, (sequence) => {
        const { lines, changes, end } = run(sequence, MANY);
        const summaries = lines.filter((l) => l.cause !== undefined);
        heldBack += summaries.length;
        // A summary comes one window after the first line it held back, on the timers, not at the next line or at stop.
        for (const s of summaries.filter((l) => l.at < end)) {
          const seconds = Number(/in the last (\d+) s were held back/.exec(s.msg)?.[1]);
          expect(seconds).toBeLessThanOrEqual(60);
        }
        for (const serial of MANY) {
          const times = changes.get(serial)!;
          const flapped = times.some((t, i) => i + T < times.length && times[i + T]! - t < W);
          const ownLine = lines.some((l) => flappingLine(l) && l.serial === serial);
          const inSummary = summaries.some((l) => l.cause === 'device-flapping' && l.subjects?.includes(serial));
          expect(ownLine || inSummary).toBe(flapped);
        }
        // Every change: a line, at info or debug, or counted in a summary of the lines held back.
        const said = lines.filter((l) => l.msg === 'device changed').length;
        const counted = summaries.filter((l) => l.cause === 'device-changed').reduce((n, l) => n + l.suppressed!, 0);
        expect(said + counted).toBe([...changes.values()].reduce((n, t) => n + t.length, 0));
      }),
      propertyRuns(120),
    );
    // The property is not empty: the limiter did hold lines back.
    expect(heldBack).toBeGreaterThan(0);
  });
});

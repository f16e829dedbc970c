// When a phone away from the host is said to lose its adb authorization, on
// virtual time: the named cases, then invariants over generated histories.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { step, type AuthEntry, type SeenPhone } from '../../../src/features/adb-authorization/lapse.js';
import { propertyRuns } from '../../support/property-runs.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const WEEK = 7 * DAY;
const LEAD = DAY;
const phone = (windowMs: number | undefined): SeenPhone => ({ udid: 'U1', serial: 'SER1', windowMs });

/** Runs the reports at `times`, the phone listed at those where `here` says so; every due, with the time it came. */
function run(times: number[], here: (t: number) => boolean, windowMs: number | undefined = WEEK) {
  let entries = new Map<string, AuthEntry>();
  const said: Array<{ at: number; kind: string }> = [];
  for (const t of times) {
    const r = step(entries, here(t) ? [phone(windowMs)] : [], t, LEAD);
    entries = r.entries;
    for (const d of r.due) said.push({ at: t, kind: d.kind });
  }
  return { said, entries };
}

const hourly = (from: number, to: number): number[] => Array.from({ length: Math.floor((to - from) / HOUR) + 1 }, (_, i) => from + i * HOUR);

describe('adb authorization lapse', () => {
  it('a phone away for 6 days with the default week: one warning, at 6 days, none after while it stays away', () => {
    const { said } = run(hourly(0, 7 * DAY + 12 * HOUR), (t) => t === 0);
    expect(said).toEqual([{ at: 6 * DAY, kind: 'lapsing' }]);
  });

  it('a phone back before 6 days: nothing; away again: one warning for that absence', () => {
    const back = 3 * DAY;
    const { said } = run(hourly(0, back + 7 * DAY), (t) => t === 0 || t === back);
    expect(said).toEqual([{ at: back + 6 * DAY, kind: 'lapsing' }]);
  });

  it('a window of 0 (Disable adb authorization timeout) never lapses; a phone whose window was never read is not followed (unknown)', () => {
    expect(run(hourly(0, 30 * DAY), (t) => t === 0, 0).said).toEqual([]);
    const never = step(new Map(), [phone(undefined)], 0, LEAD);
    expect(never.entries.size).toBe(0);
  });

  it('an agent that was not running through the warning window says once that it lapsed', () => {
    const first = step(new Map(), [phone(WEEK)], 0, LEAD);
    const later = step(first.entries, [], 8 * DAY, LEAD);
    expect(later.due.map((d) => d.kind)).toEqual(['lapsed']);
    expect(step(later.entries, [], 9 * DAY, LEAD).due).toEqual([]);
  });

  it('the window read last counts: a lab that shortened it to 2 days is warned at 1 day', () => {
    const { said } = run(hourly(0, 3 * DAY), (t) => t === 0, 2 * DAY);
    expect(said).toEqual([{ at: DAY, kind: 'lapsing' }]);
  });

  it('a phone away long past its lapse is forgotten, and its entry changes are saved', () => {
    const first = step(new Map(), [phone(WEEK)], 0, LEAD);
    expect(first.changed).toBe(true);
    const gone = step(first.entries, [], WEEK + 31 * DAY, LEAD);
    expect(gone.entries.size).toBe(0);
    expect(gone.changed).toBe(true);
  });

  it('on generated histories: each absence said at most once, never while listed, never for a window of 0, and a long one always before it lapses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gapHours: fc.integer({ min: 1, max: 30 }), here: fc.boolean() }), { minLength: 1, maxLength: 300 }),
        fc.constantFrom(WEEK, 2 * DAY, 0, 36 * HOUR),
        (ticks, windowMs) => {
          let entries = new Map<string, AuthEntry>();
          let t = 0;
          let lastHere: number | undefined;
          const saidFor = new Map<number, number>();
          for (const tick of ticks) {
            t += tick.gapHours * HOUR;
            const r = step(entries, tick.here ? [phone(windowMs)] : [], t, LEAD);
            entries = r.entries;
            if (tick.here) lastHere = t;
            for (const d of r.due) {
              if (tick.here) return false;
              if (windowMs === 0) return false;
              if (lastHere === undefined || d.entry.lastSeenWall !== lastHere) return false;
              saidFor.set(lastHere, (saidFor.get(lastHere) ?? 0) + 1);
              if (d.kind === 'lapsing' && (t < lastHere + windowMs - LEAD || t >= lastHere + windowMs)) return false;
            }
          }
          if ([...saidFor.values()].some((n) => n > 1)) return false;
          // Every absence that the ticks watched through its warning window, at most 30 h apart, was said before it lapsed
          // when a tick fell in that window: checked by the first case above on hourly ticks; here, the bound only.
          return true;
        },
      ),
      propertyRuns(600),
    );
  });

  it('on generated histories with hourly reports: an absence watched through its window is warned before the lapse', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 10 }), (startHours, presentHours) => {
        const start = startHours * HOUR;
        const away = start + presentHours * HOUR;
        const { said } = run(hourly(start, away + WEEK + DAY), (t) => t < away);
        const lastSeen = away - HOUR;
        return said.length === 1 && said[0]!.kind === 'lapsing' && said[0]!.at >= lastSeen + WEEK - LEAD && said[0]!.at < lastSeen + WEEK;
      }),
      propertyRuns(200),
    );
  });
});

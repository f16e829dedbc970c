import fc from 'fast-check';
import cron from 'node-cron';
import { afterAll, describe, expect, it } from 'vitest';
import { nextRun, parseCron, type CronSchedule } from '../../src/util/cron.js';

// node-cron (a devDependency since the agent stopped using it, see
// src/timing/cron.ts) is the oracle: on random expressions of the syntax both
// take, the same ones are valid and they name the same run times, in UTC and
// in zones with DST changes (a 30-minute one included).

type Oracle = { getNextMatch(d: Date): Date };
// node-cron has no public "next run after this date"; its task's matcher does it.
// The zone is named: node-cron keeps its Intl formatters, so a change of TZ in
// this process would not reach them.
function oracle(expression: string, timezone: string): Oracle {
  const task = cron.createTask(expression, () => undefined, { timezone }) as unknown as { timeMatcher: Oracle; destroy(): unknown };
  void task.destroy();
  return task.timeMatcher;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const FULL_MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FULL_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function fieldArb(min: number, max: number, names?: { short: string[]; full: string[]; offset: number }): fc.Arbitrary<string> {
  const n = fc.integer({ min, max });
  const name = names
    ? fc.tuple(fc.integer({ min: 0, max: names.short.length - 1 }), fc.boolean(), fc.boolean()).map(([i, full, upper]) => {
        const s = (full ? names.full : names.short)[i]!;
        return upper ? s.toUpperCase() : s;
      })
    : n.map(String);
  const atom = fc.oneof(n.map(String), name);
  const part = fc.oneof(
    { weight: 3, arbitrary: fc.constant('*') },
    { weight: 3, arbitrary: atom },
    { weight: 2, arbitrary: fc.tuple(atom, atom).map(([a, b]) => `${a}-${b}`) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: max + 1 }).map((s) => `*/${s}`) },
    { weight: 1, arbitrary: fc.tuple(n, n, fc.integer({ min: 1, max: 7 })).map(([a, b, s]) => `${a}-${b}/${s}`) },
  );
  return fc.array(part, { minLength: 1, maxLength: 3 }).map((p) => p.join(','));
}

const expressionArb = fc
  .tuple(
    fc.boolean(),
    fieldArb(0, 59),
    fieldArb(0, 59),
    fieldArb(0, 23),
    fieldArb(1, 31),
    fieldArb(1, 12, { short: MONTHS, full: FULL_MONTHS, offset: 1 }),
    fieldArb(0, 7, { short: DAYS, full: FULL_DAYS, offset: 0 }),
  )
  .map(([seconds, ...f]) => (seconds ? f : f.slice(1)).join(' '));

// 2000 to 2040, so leap years, DST rule changes and a century are all crossed.
const instantArb = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) })
  .chain((t) => fc.constantFrom(t, t - (t % 1000), t - (t % 60_000), t - (t % 3_600_000)));

const originalTz = process.env.TZ;
afterAll(() => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
});

describe('parseCron', () => {
  it('takes the same expressions as node-cron', () => {
    fc.assert(
      fc.property(expressionArb, (expression) => {
        const ours = typeof parseCron(expression) !== 'string';
        expect(ours, expression).toBe(cron.validate(expression));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['* * * * *', undefined],
    ['*/15 * * * * *', undefined],
    ['0 9-17 * * mon-fri', undefined],
    ['0 22-2 * * *', undefined],
    ['0 0 * * 7', undefined],
    ['@hourly', 'must have 5 fields (or 6 with seconds first), got 1'],
    ['* * * *', 'must have 5 fields (or 6 with seconds first), got 4'],
    ['60 * * * *', '"60" is out of range for the minute (0-59)'],
    ['*/0 * * * *', '"*/0" has a step of 0'],
    ['5/15 * * * *', '"5/15" is not a valid minute: a step needs * or a range before it'],
    ['0 0 31 2 *', 'names a day that none of its months has'],
    ['0 0 L * *', '"L" uses node-cron\'s L, W or # extensions, which this agent does not read: list the days instead'],
    ['0 0 15W * *', '"15W" uses node-cron\'s L, W or # extensions, which this agent does not read: list the days instead'],
    ['0 0 * * 5L', '"5L" uses node-cron\'s L, W or # extensions, which this agent does not read: list the days instead'],
    ['0 0 * * 1#2', '"1#2" uses node-cron\'s L, W or # extensions, which this agent does not read: list the days instead'],
    ['0 0 * * xyz', '"xyz" is out of range for the weekday (0-7)'],
    ['? * * * *', '"?" is not a valid minute (use numbers, names, *, ranges A-B and steps */N or A-B/N)'],
  ])('%s', (expression, error) => {
    const parsed = parseCron(expression);
    if (error === undefined) expect(typeof parsed).toBe('object');
    else expect(parsed).toBe(error);
  });
});

describe('nextRun', () => {
  it.each(['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe'])('names the runs node-cron names, in %s', (tz) => {
    process.env.TZ = tz;
    let compared = 0;
    fc.assert(
      fc.property(expressionArb, instantArb, (expression, after) => {
        const schedule = parseCron(expression);
        fc.pre(typeof schedule !== 'string');
        const theirCron = oracle(expression, tz);
        let theirs = theirCron.getNextMatch(new Date(after)).getTime();
        // node-cron runs again in the repeat of a local time the fall-back already showed before `after`; this
        // agent runs each local time once (the DST test below), so its next run is node-cron's first that is not
        // such a repeat (found by fast-check: every minute in Lord Howe, after 02:00 became 01:30 again).
        while (firstOccurrence(theirs) < theirs && firstOccurrence(theirs) <= after) theirs = theirCron.getNextMatch(new Date(theirs)).getTime();
        // Ours looks 30 years ahead, node-cron 100.
        fc.pre(theirs - after < 29 * 365 * 86_400_000);
        const ours = nextRun(schedule, after)!;
        // A local time the fall-back hour repeats: node-cron runs at its second occurrence, this agent at the
        // first (and once: see the DST test below). The same wall time either way; ours is the earlier.
        if (ours !== theirs && wallTime(ours, tz) === wallTime(theirs, tz)) {
          expect(ours, `${expression} after ${new Date(after).toISOString()}`).toBeLessThan(theirs);
          return;
        }
        // The first local time after a spring-forward gap, when the schedule names it: node-cron sometimes passes it
        // over (found by fast-check: 1-31 2 * */3 * in Lord Howe, whose 02:00 becomes 02:30); it is a run here.
        if (ours < theirs && ours > after && names(schedule, ours) && new Date(ours).getTimezoneOffset() !== new Date(ours - 3_600_000).getTimezoneOffset())
          return;
        expect(new Date(ours).toISOString(), `${expression} after ${new Date(after).toISOString()}`).toBe(new Date(theirs).toISOString());
        compared++;
      }),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(100);
  });

  it('runs each local time of a DST day once, and none that the day skips', () => {
    process.env.TZ = 'America/New_York';
    const schedule = parseCron('0 * * * *') as CronSchedule;
    // 2026-11-01: 01:00-01:59 comes twice; 2026-03-08: 02:00-02:59 never comes.
    const runs = (from: number, n: number) => {
      const out: number[] = [];
      for (let t = from, i = 0; i < n; i++) out.push((t = nextRun(schedule, t)!));
      return out.map((t) => new Date(t).getHours());
    };
    expect(runs(new Date(2026, 10, 1, 0, 30).getTime(), 3)).toEqual([1, 2, 3]);
    expect(runs(new Date(2026, 2, 8, 0, 30).getTime(), 3)).toEqual([1, 3, 4]);
    // A daily run at a time the change skips is not moved to 03:30: it waits a day, as in node-cron.
    const from = new Date(2026, 2, 8, 0, 0).getTime();
    const skipped = nextRun(parseCron('30 2 * * *') as CronSchedule, from)!;
    expect(new Date(skipped).toString()).toMatch(/^Mon Mar 09 2026 02:30:00/);
    expect(skipped).toBe(oracle('30 2 * * *', 'America/New_York').getNextMatch(new Date(from)).getTime());
  });

  it('finds a run years away (29 February on a Monday)', () => {
    process.env.TZ = 'UTC';
    // 29 February on a Monday: 2044 after 2016 (28 years), so from 2016-03 it is 27.9 years away.
    const schedule = parseCron('0 0 29 2 1') as CronSchedule;
    expect(new Date(nextRun(schedule, Date.UTC(2016, 2, 1))!).toISOString()).toBe('2044-02-29T00:00:00.000Z');
    expect(nextRun(parseCron('0 0 30 4 *') as CronSchedule, Date.UTC(2026, 0, 1))).toBe(Date.UTC(2026, 3, 30));
  });
});

/** The local wall time of an instant in a zone, to the minute. */
/** Whether the schedule names the local time of `at` (in process.env.TZ). */
function names(schedule: CronSchedule, at: number): boolean {
  const d = new Date(at);
  const [seconds, minutes, hours, days, months, weekdays] = schedule.fields as number[][];
  return (
    seconds!.includes(d.getSeconds()) &&
    minutes!.includes(d.getMinutes()) &&
    hours!.includes(d.getHours()) &&
    days!.includes(d.getDate()) &&
    months!.includes(d.getMonth() + 1) &&
    weekdays!.includes(d.getDay())
  );
}

/** When the local time of `at` first came (in process.env.TZ): earlier than `at` when the fall-back repeats it. */
function firstOccurrence(at: number): number {
  const d = new Date(at);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()).getTime();
}

function wallTime(at: number, tz: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: tz, dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23' }).format(new Date(at));
}

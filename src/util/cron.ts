// The report schedule's cron expressions, read in the host's local time with Date's own getters. node-cron did this
// through Intl.DateTimeFormat on every tick, which pages in ICU's date and time zone data: about 7.5 MB of the daemon's
// RSS (see docs/performance/journal.md). The syntax is node-cron's standard part, and test/timing/cron.test.ts checks
// the run times against node-cron's.

export interface CronSchedule {
  /** Allowed values per field, ascending: second, minute, hour, day of month, month (1-12), weekday (0-6, Sunday 0). */
  readonly fields: readonly (readonly number[])[];
}

const FIELDS = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'weekday', min: 0, max: 7 },
] as const;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A number, or a name: the first names the field's lowest value (January 1, Sunday 0). */
function value(text: string, names: readonly string[] | undefined, lowest: number) {
  if (/^\d+$/.test(text)) return Number(text);
  const lower = text.toLowerCase();
  const index = names?.findIndex((n) => lower === n || lower === n.slice(0, 3)) ?? -1;
  return index >= 0 ? index + lowest : NaN;
}

function parseField(text: string, field: (typeof FIELDS)[number], index: number) {
  const names = index === 4 ? MONTHS : index === 5 ? WEEKDAYS : undefined;
  // Weekday 7 is Sunday again (0): a range's top, and where a wrapping range turns round, is Saturday.
  const top = index === 5 ? 6 : field.max;
  const allowed = new Set<number>();
  for (const part of text.split(',')) {
    // node-cron's extensions (last day, nearest weekday, nth weekday): an expression that used them under node-cron is
    // refused, not misread.
    if (/^(L(-\d+)?|(\d+|L)W|[0-7]L|[0-7]#[1-5])$/i.test(part)) {
      return `"${part}" uses node-cron's L, W or # extensions, which this agent does not read: list the days instead`;
    }
    const match = /^(\*|\?|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/i.exec(part);
    if (!match || (match[1] === '?' && (index < 3 || match[2]))) {
      return `"${part}" is not a valid ${field.name} (use numbers, names, *, ranges A-B and steps */N or A-B/N)`;
    }
    let from: number = field.min;
    let to: number = top;
    if (match[1] !== '*' && match[1] !== '?') {
      const [a, b] = match[1]!.split('-');
      from = value(a!, names, field.min);
      to = b === undefined ? from : value(b, names, field.min);
      // node-cron reads "5/15" as neither a value nor a range: so does this.
      if (b === undefined && match[2]) return `"${part}" is not a valid ${field.name}: a step needs * or a range before it`;
    }
    const step = match[2] === undefined ? 1 : Number(match[2]);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < field.min || to > field.max || from > field.max || to < field.min) {
      return `"${part}" is out of range for the ${field.name} (${field.min}-${field.max})`;
    }
    if (step < 1) return `"${part}" has a step of 0`;
    // A range that runs past the end wraps round ("22-2" hours, "fri-mon"), as in node-cron.
    const size = top - field.min + 1;
    const span = from <= to ? to - from : (((to - from) % size) + size) % size;
    for (let k = 0; k <= span; k += step) {
      let v = from + k;
      if (from > to && v > top) v -= size;
      allowed.add(index === 5 && v === 7 ? 0 : v);
    }
  }
  return [...allowed].sort((x, y) => x - y);
}

/** The schedule, or a sentence saying what is wrong with the expression. */
export function parseCron(expression: string): CronSchedule | string {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    return `must have 5 fields (or 6 with seconds first), got ${parts.length}`;
  }
  if (parts.length === 5) parts.unshift('0');
  const fields: number[][] = [];
  for (const [i, field] of FIELDS.entries()) {
    const parsed = parseField(parts[i]!, field, i);
    if (typeof parsed === 'string') return parsed;
    fields.push(parsed);
  }
  const [, , , days, months] = fields;
  if (!months!.some((m) => days!.some((d) => d <= DAYS_IN_MONTH[m - 1]!))) {
    return 'names a day that none of its months has';
  }
  return { fields };
}

// Far enough for "29 February on a Monday" (28 years), short of looping on forever.
const MAX_DAYS = 366 * 30;

/**
 * The first whole second after `afterMs` that the schedule names, in local time, or undefined when none comes within 30
 * years. As with node-cron, day of month and weekday must both match, a local time that a DST change skips is not run,
 * and a repeated one runs once.
 */
export function nextRun(schedule: CronSchedule, afterMs: number) {
  const [seconds, minutes, hours, days, months, weekdays] = schedule.fields;
  const start = new Date(Math.floor(afterMs / 1000) * 1000);
  for (let i = 0; i < MAX_DAYS; i++) {
    const day = new Date(start.getFullYear(), start.getMonth(), start.getDate() + i);
    if (!months!.includes(day.getMonth() + 1) || !days!.includes(day.getDate()) || !weekdays!.includes(day.getDay())) continue;
    const bound = i === 0 ? [start.getHours(), start.getMinutes(), start.getSeconds()] : [-1, -1, -1];
    for (const h of hours!) {
      if (h < bound[0]!) continue;
      const hBound = h === bound[0];
      for (const m of minutes!) {
        if (hBound && m < bound[1]!) continue;
        const mBound = hBound && m === bound[1];
        for (const s of seconds!) {
          if (mBound && s <= bound[2]!) continue;
          const at = new Date(day.getFullYear(), day.getMonth(), day.getDate(), h, m, s);
          // A skipped local time (DST gap) lands on other fields: not a run.
          if (at.getTime() > afterMs && at.getHours() === h && at.getMinutes() === m && at.getDate() === day.getDate()) {
            return at.getTime();
          }
        }
      }
    }
  }
}

// Days until a wear figure reaches its limit, from a phone's own history of
// it. Pure: the caller hands the samples (one a day, the day's last
// reading) and the day it is now.
//
// A trend is told only when the history can tell it over its noise: the
// mean of the window's last third against the mean of its first third (by
// time, so that a burst of readings on a few days weighs no more than their
// days), at least three of the figure's steps apart (a gauge that
// wobbles by one step either way never reads as fading), over at least
// minSpanDays. The rate is that difference over the distance between the
// thirds' centres; the days left run from the last third's mean carried to
// today at that rate, at least one while the last reading is not past the
// limit. A reading already past its limit is 0 days; a figure moving away
// from it, or not moving enough to tell, has no forecast (undefined): unknown
// is never "soon".

/** One day's reading of a figure: `day` is the epoch day (ms / 86,400,000, whole). */
export interface Sample {
  day: number;
  value: number;
}

export interface ForecastRule {
  /** The figure's limit: action when it is past it. */
  limit: number;
  /** Which way the figure wears: health fades down, cycles and used life grow up. */
  direction: 'down' | 'up';
  /** The figure's step (1 % of health, 1 cycle, 10 % for an eMMC band): the trend must exceed three of them. */
  step: number;
}

/** Days of history a trend is drawn from. */
const WINDOW_DAYS = 90;
/** The least span of days, first to last reading, a trend is drawn over. */
const MIN_SPAN_DAYS = 14;

export interface Forecast {
  /** Whole days until the figure is past its limit; 0 when it is now. */
  days: number;
  /** The figure now: the last reading. */
  value: number;
  /** Change a day toward the limit (positive), when a trend told the days. */
  ratePerDay?: number;
}

/** Whether a reading is past its limit. */
export function past(value: number, rule: Pick<ForecastRule, 'limit' | 'direction'>) {
  return rule.direction === 'down' ? value < rule.limit : value > rule.limit;
}

export function forecast(samples: readonly Sample[], rule: ForecastRule, today: number) {
  const inWindow = samples.filter((s) => s.day <= today && s.day > today - WINDOW_DAYS && Number.isFinite(s.value)).sort((a, b) => a.day - b.day);
  const last = inWindow.at(-1);
  if (!last) return undefined;
  if (past(last.value, rule)) return { days: 0, value: last.value };
  const first = inWindow[0]!;
  const span = last.day - first.day;
  if (span < MIN_SPAN_DAYS) return undefined;
  const head = inWindow.filter((s) => s.day <= first.day + span / 3);
  const tail = inWindow.filter((s) => s.day >= last.day - span / 3);
  if (head.length < 2 || tail.length < 2) return undefined;
  const mean = (xs: readonly Sample[], f: (s: Sample) => number) => xs.reduce((sum, s) => sum + f(s), 0) / xs.length;
  const sign = rule.direction === 'down' ? -1 : 1;
  // Toward the limit is positive.
  const moved = sign * (mean(tail, (s) => s.value) - mean(head, (s) => s.value));
  if (moved < 3 * rule.step) return undefined;
  const between = mean(tail, (s) => s.day) - mean(head, (s) => s.day);
  if (between <= 0) return undefined;
  const rate = moved / between;
  const now = mean(tail, (s) => s.value) + sign * rate * (today - mean(tail, (s) => s.day));
  const left = sign * (rule.limit - now);
  // 0 is for a reading past the limit: a trend that says it is past today while the last reading is not says "within a day".
  return { days: Math.max(1, Math.floor(left / rate)), value: last.value, ratePerDay: rate };
}

/** The epoch day of a wall-clock instant. */
export function dayOf(ms: number) {
  return Math.floor(ms / 86_400_000);
}

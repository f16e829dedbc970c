// A phone's wear history: one sample a day, the day's last reading of each
// figure, and the minutes its battery spent held full and warm that day.
// Pure. Bounded: the days a forecast reads and a week more, KEPT_DAYS samples at most.

/** The figures a day's sample holds; each only where the phone told it. */
export interface Figures {
  /** What the battery holds when full, % of design. */
  health?: number;
  cycles?: number;
  /** Share of the flash's rated life used, %. */
  lifeUsed?: number;
  /** The largest app id of an installed third-party package. */
  appId?: number;
}

export interface DaySample extends Figures {
  day: number;
  /** Minutes the battery was held full at or above the warm limit that day. */
  warmFullMinutes?: number;
}

/** Samples by day, oldest first. */
export type History = readonly DaySample[];

/** Days kept: a 90-day forecast window and a week of swelling exposure, with slack. */
export const KEPT_DAYS = 120;

/** The history with the day's figures set (each one told replaces the day's earlier one), older days beyond KEPT_DAYS dropped. */
export function withFigures(history: History, day: number, figures: Figures) {
  const told = Object.fromEntries(Object.entries(figures).filter(([, v]) => Number.isFinite(v))) as Figures;
  return upsert(history, day, (s) => ({ ...s, ...told }));
}

/** The history with minutes of warm full exposure added to the day. */
export function withExposure(history: History, day: number, minutes: number) {
  if (!(minutes > 0)) return [...history];
  return upsert(history, day, (s) => ({ ...s, warmFullMinutes: (s.warmFullMinutes ?? 0) + minutes }));
}

function upsert(history: History, day: number, change: (s: DaySample) => DaySample) {
  const kept = history.filter((s) => s.day > day - KEPT_DAYS);
  const at = kept.findIndex((s) => s.day === day);
  if (at >= 0) kept[at] = change(kept[at]!);
  else {
    // A day before the newest (the host's clock stepped back) is kept in order all the same.
    kept.push(change({ day }));
    kept.sort((a, b) => a.day - b.day);
  }
  return capped(kept, day);
}

/** At most KEPT_DAYS samples, in order: days a clock that stepped back and forth left ahead of `day` go, the farthest from it first. */
function capped(history: DaySample[], day: number) {
  if (history.length <= KEPT_DAYS) return history;
  const nearest = [...history].sort((a, b) => Math.abs(a.day - day) - Math.abs(b.day - day)).slice(0, KEPT_DAYS);
  return nearest.sort((a, b) => a.day - b.day);
}

/** One figure's samples, for the forecast. */
export function series(history: History, figure: keyof Figures) {
  return history.flatMap((s) => (s[figure] === undefined ? [] : [{ day: s.day, value: s[figure] }]));
}

/** Hours held full and warm over the last 7 days up to `today`. */
export function warmFullHours(history: History, today: number) {
  const minutes = history.filter((s) => s.day <= today && s.day > today - 7).reduce((sum, s) => sum + (s.warmFullMinutes ?? 0), 0);
  return minutes / 60;
}

/** The latest sample's figure, where some day told it. */
export function latest(history: History, figure: keyof Figures) {
  return history.findLast((s) => s[figure] !== undefined)?.[figure];
}

/** A history read back from the state file: days and figures of the right types only, in order, bounded. */
export function historyFrom(value: unknown) {
  if (!Array.isArray(value)) return undefined;
  const out: DaySample[] = [];
  for (const item of value.slice(-KEPT_DAYS)) {
    if (typeof item !== 'object' || item === null) return undefined;
    const s = item as Record<string, unknown>;
    if (!Number.isSafeInteger(s.day)) return undefined;
    const sample: DaySample = { day: s.day as number };
    for (const key of ['health', 'cycles', 'lifeUsed', 'appId', 'warmFullMinutes'] as const) {
      const v = s[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
      sample[key] = v;
    }
    out.push(sample);
  }
  return out.sort((a, b) => a.day - b.day);
}

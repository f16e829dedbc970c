import type { Labels, Sample } from './exposition.js';

// What Prometheus holds at an instant, rebuilt from the texts the agents
// served to its scrapes, so that a test can say what a query must answer
// without asking Prometheus: the agents' own /metrics, read as Prometheus
// 2.x reads a scrape (an instant takes each target's latest scrape within
// 5 minutes, a failed scrape ends every series of its target; a range
// [t - r, t] takes every sample in it, both ends included), and the few
// PromQL operations the rules and the dashboard use, written out.

/** One scrape of a target: when Prometheus stamped it (ms), and what it read (undefined: it failed). */
export interface Scrape {
  at: number;
  samples: Sample[] | undefined;
}

export interface Series {
  labels: Labels;
  value: number;
}

const LOOKBACK_MS = 5 * 60_000;

export class World {
  /**
   * `scrapes`: each target's scrapes by its instance label, oldest first; `t`: the instant (ms); `job`: the scrape
   * job's name, which Prometheus adds to every series as it adds instance.
   */
  constructor(
    private readonly scrapes: Map<string, Scrape[]>,
    readonly t: number,
    private readonly job = 'device-agent',
  ) {}

  /** time(): the instant in seconds. */
  get time(): number {
    return this.t / 1000;
  }

  private latest(instance: string): Scrape | undefined {
    return this.scrapes
      .get(instance)!
      .filter((s) => s.at <= this.t && s.at > this.t - LOOKBACK_MS)
      .at(-1);
  }

  private target(instance: string): Labels {
    return { instance, job: this.job };
  }

  /** An instant vector selector: NAME{match}, every label given equal (the metric name dropped). */
  v(name: string, match: Labels = {}): Series[] {
    const out: Series[] = [];
    for (const instance of this.scrapes.keys()) {
      for (const s of this.latest(instance)?.samples ?? [])
        if (s.name === name && matches(s.labels, match)) out.push({ labels: { ...s.labels, ...this.target(instance) }, value: s.value });
    }
    return out;
  }

  /** up{job}: 1 for a target whose latest scrape answered, 0 for one that failed. */
  up(): Series[] {
    return [...this.scrapes.keys()].flatMap((instance) => {
      const last = this.latest(instance);
      return last ? [{ labels: this.target(instance), value: last.samples ? 1 : 0 }] : [];
    });
  }

  /** Every series of NAME{match} with its samples in [t - seconds, t]. */
  range(name: string, seconds: number, match: Labels = {}): Array<{ labels: Labels; points: Array<[number, number]> }> {
    const series = new Map<string, { labels: Labels; points: Array<[number, number]> }>();
    for (const [instance, scrapes] of this.scrapes) {
      for (const scrape of scrapes) {
        if (scrape.at < this.t - seconds * 1000 || scrape.at > this.t) continue;
        for (const s of scrape.samples ?? []) {
          if (s.name !== name || !matches(s.labels, match)) continue;
          const labels = { ...s.labels, ...this.target(instance) };
          const key = keyOf(labels);
          if (!series.has(key)) series.set(key, { labels, points: [] });
          series.get(key)!.points.push([scrape.at, s.value]);
        }
      }
    }
    return [...series.values()];
  }

  /** increase(NAME{match}[seconds]) */
  increase(name: string, seconds: number, match: Labels = {}): Series[] {
    return this.range(name, seconds, match).flatMap((s) => {
      const value = extrapolatedIncrease(s.points, this.t - seconds * 1000, this.t);
      return value === undefined ? [] : [{ labels: s.labels, value }];
    });
  }

  /** rate(NAME{match}[seconds]) */
  rate(name: string, seconds: number, match: Labels = {}): Series[] {
    return this.increase(name, seconds, match).map((s) => ({ labels: s.labels, value: s.value / seconds }));
  }
}

function matches(labels: Labels, match: Labels): boolean {
  return Object.entries(match).every(([k, v]) => (v.startsWith('!') ? labels[k] !== v.slice(1) : labels[k] === v));
}

export function keyOf(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Prometheus 2.x's extrapolatedRate for a counter (promql/functions.go): the increase between the first and the last
 * sample, each reset added back, stretched to the range's ends when a sample is near them (within 1.1 times the mean
 * interval), else by half a mean interval, and never back past the counter's zero.
 */
export function extrapolatedIncrease(points: Array<[number, number]>, rangeStart: number, rangeEnd: number): number | undefined {
  if (points.length < 2) return undefined;
  const first = points[0]!;
  const last = points.at(-1)!;
  let result = last[1] - first[1];
  let previous = 0;
  for (const [, v] of points) {
    if (v < previous) result += previous;
    previous = v;
  }
  let toStart = (first[0] - rangeStart) / 1000;
  const toEnd = (rangeEnd - last[0]) / 1000;
  const sampled = (last[0] - first[0]) / 1000;
  const mean = sampled / (points.length - 1);
  if (result > 0 && first[1] >= 0) toStart = Math.min(toStart, sampled * (first[1] / result));
  const threshold = mean * 1.1;
  let interval = sampled;
  interval += toStart < threshold ? toStart : mean / 2;
  interval += toEnd < threshold ? toEnd : mean / 2;
  return result * (interval / sampled);
}

// The aggregations and joins, as PromQL does them on instant vectors.

const pick = (labels: Labels, names: string[]): Labels => Object.fromEntries(names.filter((n) => labels[n] !== undefined).map((n) => [n, labels[n]!]));

function groups(xs: Series[], by: string[]): Map<string, { labels: Labels; values: number[] }> {
  const out = new Map<string, { labels: Labels; values: number[] }>();
  for (const x of xs) {
    const labels = pick(x.labels, by);
    const key = keyOf(labels);
    if (!out.has(key)) out.set(key, { labels, values: [] });
    out.get(key)!.values.push(x.value);
  }
  return out;
}

/** sum by (BY) (xs); sum (xs) with no BY: one sample without labels, none for an empty vector. */
export function sum(xs: Series[], by: string[] = []): Series[] {
  return [...groups(xs, by).values()].map((g) => ({ labels: g.labels, value: g.values.reduce((a, b) => a + b, 0) }));
}

export function count(xs: Series[], by: string[] = []): Series[] {
  return [...groups(xs, by).values()].map((g) => ({ labels: g.labels, value: g.values.length }));
}

/** max by (BY): NaN only where every value is NaN, as Prometheus's max. */
export function max(xs: Series[], by: string[] = []): Series[] {
  return [...groups(xs, by).values()].map((g) => ({ labels: g.labels, value: g.values.reduce((a, b) => (Number.isNaN(a) || b > a ? b : a)) }));
}

/** `xs or vector(0)` */
export function orZero(xs: Series[]): Series[] {
  return xs.length > 0 ? xs : [{ labels: {}, value: 0 }];
}

/** `left or right`: left, and each series of right whose labels no series of left has. */
export function or(left: Series[], right: Series[], on?: string[]): Series[] {
  const key = (x: Series): string => keyOf(on ? pick(x.labels, on) : x.labels);
  const seen = new Set(left.map(key));
  return [...left, ...right.filter((x) => !seen.has(key(x)))];
}

/** A filter comparison (`xs > 0`), keeping the values. */
export function where(xs: Series[], keep: (v: number) => boolean): Series[] {
  return xs.filter((x) => keep(x.value));
}

export function map(xs: Series[], f: (v: number) => number): Series[] {
  return xs.map((x) => ({ labels: x.labels, value: f(x.value) }));
}

/** `left and on (ON) right` */
export function and(left: Series[], right: Series[], on: string[]): Series[] {
  const keys = new Set(right.map((r) => keyOf(pick(r.labels, on))));
  return left.filter((l) => keys.has(keyOf(pick(l.labels, on))));
}

/**
 * `left OP on (ON) group_left (COPY) right`, many to one: each left series with the one right series of its ON labels,
 * the COPY labels taken from it (an empty one is none); `on` undefined: one to one on all labels.
 */
export function join(left: Series[], right: Series[], op: (l: number, r: number) => number, on?: string[], copy: string[] = []): Series[] {
  const index = new Map<string, Series>();
  const key = (x: Series): string => keyOf(on ? pick(x.labels, on) : x.labels);
  for (const r of right) {
    if (index.has(key(r))) throw new Error(`many series on the right side for ${key(r)}`);
    index.set(key(r), r);
  }
  return left.flatMap((l) => {
    const r = index.get(key(l));
    if (!r) return [];
    const labels = { ...l.labels };
    for (const c of copy) {
      if (r.labels[c] === undefined) delete labels[c];
      else labels[c] = r.labels[c];
    }
    return [{ labels, value: op(l.value, r.value) }];
  });
}

/** topk / bottomk: the k largest or smallest, ties left as the test cannot order them. */
export function topk(k: number, xs: Series[], bottom = false): Series[] {
  const sorted = [...xs].sort((a, b) => (bottom ? a.value - b.value : b.value - a.value));
  if (sorted.length > k && sorted[k - 1]!.value === sorted[k]!.value) throw new Error(`a tie at the ${k}th place: topk's choice is Prometheus's`);
  return sorted.slice(0, k);
}

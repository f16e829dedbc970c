// /metrics in Prometheus's text format (0.0.4), written by prom-client: the
// agent's own series (Metric, src/util/metric.ts), gathered afresh at each
// scrape, and the process series every Prometheus client library exports
// (process_*, nodejs_*: prom-client's default metrics), once the daemon asks
// for them. Measured against the hand-written formatter it replaced:
// docs/reference/metrics.md, "How the text is written".

import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Metric } from '../util/metric.js';

/**
 * A label value holds at most this many characters: device values are
 * bounded where they enter (src/report/field-limits.ts, 256 for a udid), and
 * this holds for any other value that reaches a label, so that one value can
 * never make a scrape large (issue 35).
 */
export const MAX_LABEL_CHARS = 512;

/**
 * How often nodejs_eventloop_lag_* samples the event loop's delay.
 * prom-client's default, 10 ms, wakes the process 100 times a second: 0.5 %
 * of a core on an idle agent whose budget is 1 % (docs/reference/metrics.md).
 */
export const EVENT_LOOP_SAMPLE_MS = 1000;

/**
 * prom-client's gauges named like counters, which `promtool check metrics`
 * refuses ("non-counter metrics should not have _total suffix",
 * prometheus/client_js#283): their totals are sum(nodejs_active_handles) and
 * the like, whose series stay.
 */
const WITHOUT = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** One of our series as prom-client keeps it between scrapes, with the label names it was made with. */
interface Family {
  metric: Gauge | Counter;
  type: Metric['type'];
  labels: string;
}

export class Exposition {
  private readonly registry = new Registry();
  private readonly families = new Map<string, Family>();
  private processSeries = false;

  /**
   * From now on, the process series too. They sample the event loop and
   * watch the garbage collector, which only the daemon wants; a second call
   * changes nothing.
   */
  withProcessSeries(): void {
    if (this.processSeries) return;
    this.processSeries = true;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    for (const name of WITHOUT) this.registry.removeSingleMetric(name);
  }

  /**
   * The text of one scrape: the process series (when asked for), then
   * these. Throws when two of them share a name (a bug: the text would
   * hold one family twice).
   */
  async text(metrics: readonly Metric[]): Promise<string> {
    const seen = new Set<string>();
    for (const m of metrics) {
      if (seen.has(m.name)) throw new Error(`two metric families are named ${m.name}`);
      seen.add(m.name);
      this.load(m);
    }
    // A family no source gives any more (a feature's, switched off) goes with its samples.
    for (const name of [...this.families.keys()]) {
      if (seen.has(name)) continue;
      this.registry.removeSingleMetric(name);
      this.families.delete(name);
    }
    return this.registry.metrics();
  }

  private load(m: Metric): void {
    const labelNames = [...new Set(m.samples.flatMap((s) => Object.keys(s.labels ?? {})))];
    const family = this.familyOf(m, labelNames);
    family.reset();
    for (const sample of m.samples) {
      // An unknown value is absent, as everywhere in /metrics; prom-client refuses an infinite one.
      if (!Number.isFinite(sample.value)) continue;
      const labels = clipped(sample.labels ?? {});
      const value = tidy(sample.value);
      if (family instanceof Counter) family.inc(labels, value);
      else family.set(labels, value);
    }
    // prom-client gives an unlabelled family a 0 of its own: a value not known yet stays absent.
    if (labelNames.length === 0 && !m.samples.some((s) => Number.isFinite(s.value))) family.remove();
  }

  private familyOf(m: Metric, labelNames: string[]): Gauge | Counter {
    const labels = [...labelNames].sort().join(',');
    const known = this.families.get(m.name);
    if (known && known.type === m.type && known.labels === labels) return known.metric;
    if (known) this.registry.removeSingleMetric(m.name);
    const config = { name: m.name, help: m.help, labelNames, registers: [this.registry] };
    const metric = m.type === 'counter' ? new Counter(config) : new Gauge(config);
    this.families.set(m.name, { metric, type: m.type, labels });
    return metric;
  }
}

function clipped(labels: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) out[k] = v.length > MAX_LABEL_CHARS ? `${v.slice(0, MAX_LABEL_CHARS - 1)}…` : v;
  return out;
}

/**
 * A value as a person reads it: 15 significant digits, which every double
 * holds exactly, so that a sum or a quotient of milliseconds shows 0.243762873
 * and not 0.24376287299999969 (the last digits are the binary fraction's,
 * not the measurement's). Integers are left whole.
 */
export function tidy(value: number): number {
  return Number.isInteger(value) ? value : Number(value.toPrecision(15));
}

/** The text of these metrics alone, as a scrape shows them (without the process series). */
export function formatMetrics(metrics: readonly Metric[]): Promise<string> {
  return new Exposition().text(metrics);
}

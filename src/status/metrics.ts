// /metrics in Prometheus's text format, written by prom-client: the agent's own series, gathered at each scrape, and the
// process series (process_*, nodejs_*) once the daemon asks for them.

import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Metric } from '../util/metric.js';

/** A label value holds at most this many characters, so one value can never make a scrape large. */
export const MAX_LABEL_CHARS = 512;

/** How often the event loop lag is sampled: prom-client's 10 ms costs an idle agent 0.5 % of a core against its 1 %. */
const EVENT_LOOP_SAMPLE_MS = 1000;

/** prom-client's gauges named like counters, which `promtool check metrics` refuses (prometheus/client_js#283). */
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

  /** From now on, the process series too (they watch the event loop and GC, which only the daemon wants). */
  withProcessSeries() {
    if (this.processSeries) return;
    this.processSeries = true;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    for (const name of WITHOUT) this.registry.removeSingleMetric(name);
  }

  /** The text of one scrape: the process series (when asked), then these; throws when two share a name. */
  async text(metrics: readonly Metric[]) {
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
    return tidySamples(await this.registry.metrics());
  }

  private load(m: Metric) {
    const labelNames = [...new Set(m.samples.flatMap((s) => Object.keys(s.labels ?? {})))];
    const family = this.familyOf(m, labelNames);
    family.reset();
    for (const sample of m.samples) {
      // An unknown value is absent, as everywhere in /metrics; prom-client refuses an infinite one.
      if (!Number.isFinite(sample.value)) continue;
      const labels = Object.fromEntries(
        Object.entries(sample.labels ?? {}).map(([k, v]) => [k, v.length > MAX_LABEL_CHARS ? `${v.slice(0, MAX_LABEL_CHARS - 1)}…` : v]),
      );
      const value = tidy(sample.value);
      if (family instanceof Counter) family.inc(labels, value);
      else family.set(labels, value);
    }
    // prom-client gives an unlabelled family a 0 of its own: a value not known yet stays absent.
    if (labelNames.length === 0 && !m.samples.some((s) => Number.isFinite(s.value))) family.remove();
  }

  private familyOf(m: Metric, labelNames: string[]) {
    const labels = [...labelNames].sort().join(',');
    const known = this.families.get(m.name);
    if (known?.type === m.type && known.labels === labels) return known.metric;
    if (known) this.registry.removeSingleMetric(m.name);
    const config = { name: m.name, help: m.help, labelNames, registers: [this.registry] };
    const metric = m.type === 'counter' ? new Counter(config) : new Gauge(config);
    this.families.set(m.name, { metric, type: m.type, labels });
    return metric;
  }
}

/** A value as a person reads it: 15 significant digits (0.243762873, not 0.24376287299999969); integers whole. */
export function tidy(value: number) {
  return Number.isInteger(value) ? value : Number(value.toPrecision(15));
}

/**
 * Each sample of the text with its value tidied: ours are already, but
 * prom-client's own series add up as they go (process_cpu_seconds_total sums
 * microseconds as seconds: 0.10943599999999999, seen in CI).
 */
function tidySamples(text: string) {
  return text.replace(/^([^#\n][^\n]* )(-?\d+\.\d+(?:e[-+]?\d+)?)$/gm, (_line, head: string, value: string) => `${head}${tidy(Number(value))}`);
}

/** The text of these metrics alone, as a scrape shows them (without the process series). */
export function formatMetrics(metrics: readonly Metric[]) {
  return new Exposition().text(metrics);
}

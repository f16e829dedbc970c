// What a metric is, below every folder that serves one: the status endpoint formats them (src/status/metrics.ts), and a
// platform's source gives its own (src/platforms/source.ts) without knowing the status folder.

export type MetricType = 'gauge' | 'counter';

export interface Sample {
  labels?: Record<string, string>;
  value: number;
}

export interface Metric {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

/** Something that adds series to /metrics at each scrape. */
export interface MetricSource {
  metrics(): Metric[];
}

/** A gauge with one unlabelled sample, or none while the value is unknown. */
export function gauge(name: string, help: string, value: number | undefined): Metric {
  return { name, help, type: 'gauge', samples: value === undefined ? [] : [{ value }] };
}

// Prometheus text exposition format (version 0.0.4). Pure: values in, text out.

import type { Metric } from '../util/metric.js';

export function formatMetrics(metrics: Metric[]): string {
  const lines: string[] = [];
  for (const m of metrics) {
    lines.push(`# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
    lines.push(`# TYPE ${m.name} ${m.type}`);
    for (const s of m.samples) lines.push(`${m.name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * A label value holds at most this many characters: device values are
 * bounded where they enter (src/report/field-limits.ts, 256 for a udid), and
 * this holds for any other value that reaches a label, so that one value can
 * never make a scrape large (issue 35).
 */
export const MAX_LABEL_CHARS = 512;

function formatLabels(labels: Record<string, string> | undefined): string {
  if (!labels || Object.keys(labels).length === 0) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${clipLabel(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return `{${parts.join(',')}}`;
}

function clipLabel(value: string): string {
  return value.length > MAX_LABEL_CHARS ? `${value.slice(0, MAX_LABEL_CHARS - 1)}…` : value;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

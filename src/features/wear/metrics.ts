// Wear's own series of /metrics: the phones needing action within the notice,
// by reason, and the phones whose wear source could not be read, by what.
// Bounded labels: the reasons (judge.ts) and the sources' names, never a
// label per device (the per-device gauges carry the udid). Pure.
import type { Metric } from '../../util/metric.js';
import type { Unread } from '../../platforms/wear.js';
import { REASONS, type Finding } from './judge.js';

/** The sources a phone may not tell wear through: the label set of device_agent_wear_unread_devices. */
const SOURCES = ['power_supply', 'storage life', 'packages', 'app ids', '/data/local/tmp', 'tradeinmode', 'tradeinmode battery', 'diagnostics relay'] as const;

export function wearMetrics(phones: ReadonlyArray<{ findings: readonly Finding[]; unread: readonly Unread[] }>, noticeDays: number): Metric[] {
  return [
    {
      name: 'device_agent_wear_devices',
      help: 'Phones with a wear figure past its limit or forecast to pass it within wear.noticeDays, by reason.',
      type: 'gauge',
      samples: REASONS.map((reason) => ({
        labels: { reason },
        value: phones.filter((p) => p.findings.some((f) => f.reason === reason && f.days <= noticeDays)).length,
      })),
    },
    {
      name: 'device_agent_wear_unread_devices',
      help: 'Phones whose last reading could not read a wear source, by source (absent, unreadable, refused or garbage: doctor says which); such a phone is never judged worn on it.',
      type: 'gauge',
      samples: SOURCES.map((source) => ({ labels: { source }, value: phones.filter((p) => p.unread.some((u) => u.what === source)).length })),
    },
  ];
}

// The readiness series of /metrics: per check of the baseline, the phones failing it (labels from the fixed baseline,
// never per device), the phones judged and not ready, and the drift events by kind. Pure.
import type { Metric } from '../../util/metric.js';
import type { ReadinessDetail } from '../../devices/verdicts.js';
import { stateOf } from './verdict.js';

/** The drift events since the agent started (drift.ts). */
interface DriftCounts {
  /** Readiness values that flipped, by check. */
  changes: ReadonlyMap<string, number>;
  /** Phones that went not ready, by each check failing at that moment. */
  notReady: ReadonlyMap<string, number>;
  /** Build fingerprints that changed (OTA updates). */
  builds: number;
}

/** The phones by their verdict: the gauges, counted over the phones the views show (their rows). */
export function readinessGauges(checks: readonly string[], verdicts: ReadonlyArray<ReadinessDetail | undefined>): Metric[] {
  const judged = verdicts.filter((v): v is ReadinessDetail => v !== undefined);
  const failing = new Map(checks.map((c) => [c, 0]));
  for (const verdict of judged) for (const f of verdict.failed) failing.set(f.check.id, (failing.get(f.check.id) ?? 0) + 1);
  return [
    {
      name: 'device_agent_readiness_failing_devices',
      help: "phones whose last readiness verdict fails the check of the lab's baseline (readiness.checks)",
      type: 'gauge',
      samples: [...failing].map(([check, value]) => ({ labels: { check }, value })),
    },
    {
      name: 'device_agent_readiness_devices',
      help: 'phones adb or usbmuxd lists, by their last readiness verdict (kept while the next reading is in flight): ready (every check of the baseline read and met), not_ready (one failed), unread (none failed, one or more could not be read)',
      type: 'gauge',
      samples: (['ready', 'not_ready', 'unread'] as const).map((verdict) => ({
        labels: { verdict },
        value: judged.filter((v) => stateOf(v) === verdict).length,
      })),
    },
  ];
}

/** The drift events, counted since the agent started. */
export function readinessCounters(checks: readonly string[], counts: DriftCounts): Metric[] {
  const byCheck = (events: ReadonlyMap<string, number>) => checks.map((check) => ({ labels: { check }, value: events.get(check) ?? 0 }));
  return [
    {
      name: 'device_agent_readiness_changes_total',
      help: 'readiness values that changed on a phone between two readings, by check (each logged once)',
      type: 'counter',
      samples: byCheck(counts.changes),
    },
    {
      name: 'device_agent_readiness_not_ready_total',
      help: 'phones that went not ready (the first reading of each stretch, logged once), by each check failing then',
      type: 'counter',
      samples: byCheck(counts.notReady),
    },
    {
      name: 'device_agent_readiness_build_changes_total',
      help: 'phones whose build fingerprint changed between two readings (an OTA update or a new image; each logged once)',
      type: 'counter',
      samples: [{ value: counts.builds }],
    },
  ];
}

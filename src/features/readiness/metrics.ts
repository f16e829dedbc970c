// The readiness series of /metrics: per check of the baseline, how many
// phones fail it, and how many phones were judged and found not ready. The
// labels are the baseline's check names, a fixed set: never one per device
// (the device's message names its own failures). Pure.
import type { Metric } from '../../util/metric.js';
import type { Verdict } from './verdict.js';

/** `flips`: the readiness values that changed on a phone since the agent started (drift.ts). */
export function readinessMetrics(checks: readonly string[], verdicts: ReadonlyArray<Verdict | undefined>, flips: number): Metric[] {
  const judged = verdicts.filter((v): v is Verdict => v !== undefined);
  const failing = new Map(checks.map((c) => [c, 0]));
  for (const verdict of judged) for (const f of verdict.failed) failing.set(f.check.id, (failing.get(f.check.id) ?? 0) + 1);
  return [
    {
      name: 'device_agent_readiness_failing_devices',
      help: "Android phones whose last readiness reading fails the check of the lab's baseline (readiness.checks)",
      type: 'gauge',
      samples: [...failing].map(([check, value]) => ({ labels: { check }, value })),
    },
    {
      name: 'device_agent_readiness_devices',
      help: 'Android phones with a readiness reading, by verdict',
      type: 'gauge',
      samples: [
        { labels: { verdict: 'ready' }, value: judged.filter((v) => v.ready).length },
        { labels: { verdict: 'not_ready' }, value: judged.filter((v) => !v.ready).length },
      ],
    },
    {
      name: 'device_agent_readiness_changes_total',
      help: 'readiness values that changed on a phone between two readings (each logged once)',
      type: 'counter',
      samples: [{ value: flips }],
    },
  ];
}

// Each feature's hooks run isolated and timed, as node_exporter's collectors are: one that throws is said (once per
// feature, hook and error) and counted, what it would have added is left out, and the other features and the report
// go on; the time each hook takes is counted by feature and hook. Its start and stop, the hooks that may hang, the
// daemon bounds where it awaits them (src/agent/agent.ts).
import type { Logger } from '../log/logger.js';
import { limited } from '../log/limited.js';
import { SaidOnce } from '../log/said-once.js';
import type { AgentStats } from '../stats/agent-stats.js';
import { counterKey } from '../stats/counter.js';
import type { Clock } from '../util/clock.js';
import type { MetricSource } from '../util/metric.js';
import type { DeviceFeature } from './feature.js';

const HOOK_SECONDS = counterKey(
  'device_agent_feature_hook_seconds_total',
  "Seconds the features' hooks took, by feature and hook (notes, judge, annotate, answered, cells, metrics, ...).",
  ['feature', 'hook'],
);
const HOOK_FAILURES = counterKey(
  'device_agent_feature_hook_failures_total',
  "Calls of a feature's hook that threw, by feature and hook: what it would have added was left out, the others went on.",
  ['feature', 'hook'],
);

/**
 * What a hook, or a part of what one returns (a field's value, a gauge's samples, a column's cell), gives when it throws:
 * judge and annotate hand back the devices they were given unchanged; nothing else.
 */
const FALLBACK: Readonly<Record<string, (args: unknown[]) => unknown>> = {
  judge: (args) => args[0],
  annotate: (args) => args[0],
  samples: () => [],
  cell: () => '-',
  paint: (args) => args[1],
};
/** Awaited by the daemon under a deadline, not here. */
const LIFECYCLE = new Set(['start', 'stop']);
/** Hooks that return parts the views call on for each device. */
const PARTS = new Set(['fields', 'columns', 'gauges']);

export interface GuardParts {
  logger: Logger;
  clock: Pick<Clock, 'monotonic'>;
  stats: AgentStats;
}

/**
 * The feature with each hook isolated and timed, and the parts its fields, columns and gauges hand the views; its other
 * parts (its action, its doctor lines) as they are.
 */
export function guarded<F extends DeviceFeature>(feature: F, { logger, clock, stats }: GuardParts): F {
  const said = new SaidOnce(() => clock.monotonic());
  const guard =
    (hook: string, fn: (...args: unknown[]) => unknown, self: unknown) =>
    (...args: unknown[]): unknown => {
      const at = clock.monotonic();
      try {
        const result = fn.apply(self, args);
        // The parts the views call on (a field's value, a gauge's samples, a column's cell): guarded too, as `fields.value`.
        return PARTS.has(hook) && Array.isArray(result) ? result.map((part: unknown) => guardParts(hook, part)) : result;
      } catch (err) {
        stats.counter(HOOK_FAILURES).add(feature.name, hook);
        if (said.say(hook, String(err)))
          limited(logger).error(
            `feature-hook ${feature.name} ${hook}`,
            { feature: feature.name, hook, err },
            `feature ${feature.name}: its ${hook} hook failed (${String(err)}); what it adds is left out and the other features go on. A bug in the agent: report it`,
          );
        return FALLBACK[hook.slice(hook.indexOf('.') + 1)]?.(args);
      } finally {
        stats.counter(HOOK_SECONDS).plus((clock.monotonic() - at) / 1000, feature.name, hook);
      }
    };
  const guardParts = (hook: string, part: unknown): unknown => {
    if (typeof part !== 'object' || part === null) return part;
    const out: Record<string, unknown> = { ...part };
    for (const [k, v] of Object.entries(part)) if (typeof v === 'function') out[k] = guard(`${hook}.${k}`, v as (...args: unknown[]) => unknown, part);
    return out;
  };
  const out: Record<string, unknown> = { ...(feature as object) };
  for (const [hook, fn] of Object.entries(feature)) {
    if (typeof fn === 'function' && !LIFECYCLE.has(hook)) out[hook] = guard(hook, fn as (...args: unknown[]) => unknown, feature);
  }
  return out as F;
}

/** The hooks' series, for /metrics. */
export function hookMetrics(stats: AgentStats): MetricSource {
  return { metrics: () => [stats.counter(HOOK_SECONDS).metric(), stats.counter(HOOK_FAILURES).metric()] };
}

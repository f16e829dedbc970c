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
 * What a hook, or a part one hands the views (a column's cell, a gauge's samples), gives when it throws: judge and
 * annotate hand back the devices they were given; the others nothing.
 */
const FALLBACK: Readonly<Record<string, (args: unknown[]) => unknown>> = {
  judge: (args) => args[0],
  annotate: (args) => args[0],
  'gauges.samples': () => [],
  'columns.cell': () => '-',
  'columns.paint': (args) => args[1],
};
/** Hooks that return parts the views call for each device (a field's value, a column's cell, a gauge's samples). */
const PARTS = new Set(['fields', 'columns', 'gauges']);

type Hook = (...args: unknown[]) => unknown;

export interface GuardParts {
  logger: Logger;
  clock: Pick<Clock, 'monotonic'>;
  stats: AgentStats;
}

/**
 * The feature with each hook isolated and timed, and the parts its fields, columns and gauges hand the views; its start
 * and stop (the daemon bounds them) and its other parts (its action, its doctor lines) as they are.
 */
export function guarded<F extends DeviceFeature>(feature: F, { logger, clock, stats }: GuardParts) {
  const said = new SaidOnce();
  const guard =
    (hook: string, fn: Hook, self: unknown): Hook =>
    (...args) => {
      const at = clock.monotonic();
      try {
        const result = fn.apply(self, args);
        return PARTS.has(hook) ? (result as object[]).map((part) => all(part, `${hook}.`)) : result;
      } catch (err) {
        stats.counter(HOOK_FAILURES).add(feature.name, hook);
        if (said.say(hook, String(err)))
          limited(logger).error(
            `feature-hook ${feature.name} ${hook}`,
            { feature: feature.name, hook, err },
            `feature ${feature.name}: its ${hook} hook failed (${String(err)}); what it adds is left out and the other features go on. A bug in the agent: report it`,
          );
        return FALLBACK[hook]?.(args);
      } finally {
        stats.counter(HOOK_SECONDS).plus((clock.monotonic() - at) / 1000, feature.name, hook);
      }
    };
  const all = <T extends object>(owner: T, prefix: string) => {
    const out: Record<string, unknown> = { ...(owner as object) };
    for (const [k, v] of Object.entries(owner)) if (typeof v === 'function' && k !== 'start' && k !== 'stop') out[k] = guard(prefix + k, v as Hook, owner);
    return out as T;
  };
  return all(feature, '');
}

/** The hooks' series, for /metrics. */
export function hookMetrics(stats: AgentStats): MetricSource {
  return { metrics: () => [stats.counter(HOOK_SECONDS).metric(), stats.counter(HOOK_FAILURES).metric()] };
}

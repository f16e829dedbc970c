// Readiness for automation as the report sees it: a phone that fails the
// lab's baseline (readiness.checks) says so in its message, each failed check
// named with what to do, while it lasts; /metrics counts the phones failing
// each check. The readings are the inventory's own (the slow-tier readiness
// sections of the one shell session per device): this reads them and opens
// no session.
import { parseReadinessChecks } from '../../config/readiness.js';
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceSnapshot } from '../../devices/record.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { parseReadiness } from '../../platforms/android/inventory/parsers/readiness.js';
import { READINESS_PROBES } from '../../platforms/android/inventory/probes/readiness.js';
import { cachedSection } from '../../platforms/android/source.js';
import { readinessMetrics } from './metrics.js';
import { judge, verdictMessage, type Verdict } from './verdict.js';

export function readinessFeature(registry: Pick<DeviceRegistry, 'facet' | 'list'>, checks: readonly string[]): DeviceFeature {
  const baseline = parseReadinessChecks(checks);
  const verdictOf = (device: DeviceSnapshot): Verdict | undefined => {
    if (baseline.size === 0 || device.platform !== 'android') return undefined;
    const texts = READINESS_PROBES.map((probe) => cachedSection(registry, device.key, probe.section));
    const reading = texts.every((t) => t === undefined) ? undefined : parseReadiness(texts.join('\n'));
    return reading && judge(reading, baseline, device.last?.brandName);
  };
  return {
    name: 'readiness',
    notes: (device) => {
      const verdict = verdictOf(device);
      return verdict ? [verdictMessage(verdict)] : [];
    },
    metrics: () => (baseline.size === 0 ? [] : readinessMetrics([...baseline.keys()], registry.list('android').map(verdictOf))),
  };
}

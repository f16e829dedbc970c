// Readiness for automation as the report sees it: a phone that fails the
// lab's baseline (readiness.checks) says so in its message, each failed check
// named with what to do, while it lasts. The readings are the inventory's own
// (the slow-tier readiness sections of the one shell session per device);
// this reads them and opens no session.
import { parseReadinessChecks } from '../../config/readiness.js';
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { parseReadiness } from '../../platforms/android/inventory/parsers/readiness.js';
import { READINESS_PROBES } from '../../platforms/android/inventory/probes/readiness.js';
import { cachedSection } from '../../platforms/android/source.js';
import { judge, verdictMessage } from './verdict.js';

export function readinessFeature(registry: Pick<DeviceRegistry, 'facet'>, checks: readonly string[]): DeviceFeature {
  const baseline = parseReadinessChecks(checks);
  return {
    name: 'readiness',
    notes: (device) => {
      if (baseline.size === 0 || device.platform !== 'android') return [];
      const texts = READINESS_PROBES.map((probe) => cachedSection(registry, device.key, probe.section));
      const reading = texts.every((t) => t === undefined) ? undefined : parseReadiness(texts.join('\n'));
      return reading ? [verdictMessage(judge(reading, baseline, device.last?.brandName))] : [];
    },
  };
}

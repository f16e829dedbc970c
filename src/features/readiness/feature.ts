// Readiness for automation as the report sees it: a phone that fails the
// lab's baseline (readiness.checks) says so in its message, each failed check
// named with what to do, while it lasts; /metrics counts the phones failing
// each check; a value that changes on a phone is one info line, once. The
// readings are the inventory's own (the slow-tier readiness sections of the
// one shell session per device): this reads them and opens no session.
import { parseReadinessChecks } from '../../config/readiness.js';
import { facetKey } from '../../devices/facet.js';
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceSnapshot } from '../../devices/record.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { Logger } from '../../log/logger.js';
import { parseReadiness, type ReadinessReading } from '../../platforms/android/inventory/parsers/readiness.js';
import { READINESS_PROBES } from '../../platforms/android/inventory/probes/readiness.js';
import { cachedSection } from '../../platforms/android/source.js';
import { flipLine, flips, type Values } from './drift.js';
import { readinessMetrics } from './metrics.js';
import { judge, valuesOf, verdictCell, verdictMessage, type Verdict } from './verdict.js';

/** The values last read of each phone, by its stable key past its connections: a change across a replug or an update is still a change. */
const SEEN = facetKey<Values>('readiness-seen', 'device');

export function readinessFeature(registry: Pick<DeviceRegistry, 'facet' | 'list'>, checks: readonly string[], logger?: Logger): DeviceFeature {
  const baseline = parseReadinessChecks(checks);
  const seen = registry.facet(SEEN);
  let flipCount = 0;
  const readingOf = (device: DeviceSnapshot): ReadinessReading | undefined => {
    // Selected by what the platform read, never by its name: a record without readiness sections (an iPhone) has no reading.
    if (baseline.size === 0) return undefined;
    const texts = READINESS_PROBES.map((probe) => cachedSection(registry, device.key, probe.section));
    return texts.every((t) => t === undefined) ? undefined : parseReadiness(texts.join('\n'));
  };
  const verdictOf = (device: DeviceSnapshot): Verdict | undefined => {
    const reading = readingOf(device);
    return reading && judge(reading, baseline, device.last?.brandName);
  };
  return {
    name: 'readiness',
    notes: (device) => {
      const verdict = verdictOf(device);
      return verdict ? [verdictMessage(verdict)] : [];
    },
    answered: (device) => {
      const reading = readingOf(device);
      if (!reading) return;
      const now = valuesOf(reading, baseline, device.last?.brandName);
      const before = seen.get(device.key);
      seen.set(device.key, { ...before, ...now });
      for (const flip of before ? flips(before, now, baseline) : []) {
        flipCount++;
        // Named by its udid, as the cloud knows it; adb's serial (an address over TCP) beside it.
        logger?.info({ serial: device.serial, check: flip.check, from: flip.from, to: flip.to }, `device ${device.udid ?? device.serial}: ${flipLine(flip)}`);
      }
    },
    columns: () => (baseline.size === 0 ? [] : [{ key: 'readiness', title: 'READY' }]),
    cells: (_info, device): Record<string, string> => {
      const reading = device && readingOf(device);
      if (!device || !reading) return {};
      const maker = device.last?.brandName;
      const cell = verdictCell(judge(reading, baseline, maker), Object.keys(valuesOf(reading, baseline, maker)).length);
      return cell === undefined ? {} : { readiness: cell };
    },
    metrics: () => (baseline.size === 0 ? [] : readinessMetrics([...baseline.keys()], registry.list().map(verdictOf), flipCount)),
  };
}

import { chargeFeature } from '../../src/features/charge/feature.js';
import type { DeviceMapping } from '../../src/actions/device-mapping.js';
import { samsungFeature } from '../../src/features/samsung/feature.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import type { DeviceRegistry } from '../../src/devices/registry.js';
import { healthFeature } from '../../src/features/health/feature.js';
import { AgentStats } from '../../src/stats/agent-stats.js';

/**
 * The features that add fields, columns and gauges to the views, in the
 * order src/agent/features.ts registers them (Samsung protection before
 * charge control, health last), reading the ways through `look`.
 */
export function rowFeatures(registry: DeviceRegistry, look?: DeviceMapping): DeviceFeature[] {
  const stats = new AgentStats();
  return [samsungFeature(registry, stats, look), chargeFeature(registry, stats, { mapping: look }), healthFeature(registry)];
}

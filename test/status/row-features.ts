import type { DeviceMapping } from '../../src/actions/device-mapping.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import type { DeviceRegistry } from '../../src/devices/registry.js';
import { chargeFeature } from '../../src/features/charge/feature.js';
import { healthFeature } from '../../src/features/health/feature.js';
import { samsungFeature } from '../../src/features/samsung/feature.js';
import { wearFeature } from '../../src/features/wear/feature.js';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';

/**
 * The features that add fields, columns and gauges to the views, in the
 * order src/agent/features.ts registers them (Samsung protection, wear,
 * charge control, health last), reading the ways through `look`.
 */
export function rowFeatures(registry: DeviceRegistry, look?: DeviceMapping): DeviceFeature[] {
  const ctx = featureContext<AndroidControl>({ registry, ...(look && { mapping: look }) });
  return [samsungFeature(ctx), wearFeature(ctx), chargeFeature(ctx), healthFeature(ctx)];
}

// Every feature that acts on a device, registered in one place, in the order
// their notes join a device's message: adding one is a folder with a
// DeviceFeature (src/devices/feature.ts) and a line here.
import { chargeFeature } from '../actions/charge/feature.js';
import { recoveryFeature } from '../actions/recovery/feature.js';
import { samsungFeature } from '../actions/samsung/feature.js';
import { trustFeature } from '../actions/trust-feature.js';
import type { DeviceFeature } from '../devices/feature.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { readinessFeature } from '../features/readiness/feature.js';
import type { Logger } from '../log/logger.js';

/** `readiness`: the lab's readiness baseline (readiness.checks); none, as in tests that build the features alone, turns readiness off. `logger`: where drift lines go. */
export function buildFeatures(registry: DeviceRegistry, readiness: readonly string[] = [], logger?: Logger): DeviceFeature[] {
  return [recoveryFeature(registry), samsungFeature(registry), trustFeature(), chargeFeature(registry), readinessFeature(registry, readiness, logger)];
}

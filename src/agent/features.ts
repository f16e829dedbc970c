// Every feature that acts on a device, registered in one place, in the order
// their notes join a device's message: adding one is a folder with a
// DeviceFeature (src/devices/feature.ts) and a line here.
import { chargeFeature } from '../actions/charge/feature.js';
import { recoveryFeature } from '../actions/recovery/feature.js';
import { samsungFeature } from '../actions/samsung/feature.js';
import { trustFeature } from '../actions/trust-feature.js';
import type { DeviceFeature } from '../devices/feature.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { usbFeature } from '../features/usb/feature.js';
import type { UsbContext } from '../features/usb/layer.js';

/** What the features that follow something of their own need: the daemon's settings, state directory, logger and clock. */
type FeatureContext = UsbContext;

export function buildFeatures(registry: DeviceRegistry, context?: FeatureContext): DeviceFeature[] {
  return [recoveryFeature(registry), samsungFeature(registry), trustFeature(), chargeFeature(registry), usbFeature(context)];
}

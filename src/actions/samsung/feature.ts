// Samsung's battery protection as the report sees it: where it stands on the
// phone, in the device's message while that is a problem.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { BatteryProtections } from './state.js';

export function samsungFeature(registry: Pick<DeviceRegistry, 'facet'>): DeviceFeature {
  return { name: 'samsung-protection', notes: (device) => [new BatteryProtections(registry, device.platform).of(device.serial)?.message] };
}

// Samsung's battery protection as the report sees it: where it stands on the
// phone, in the device's message while that is a problem.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { BatteryProtections } from './state.js';

export function samsungFeature(registry: Pick<DeviceRegistry, 'facet'>): DeviceFeature {
  const protections = new BatteryProtections(registry);
  return { name: 'samsung-protection', notes: (device) => [protections.of(device.serial)?.message] };
}

// Samsung's battery protection as the report sees it: where it stands on the
// phone, in the device's message while that is a problem, and its counters.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { PROTECTION_PROBLEMS, PROTECTION_WRITES } from './counts.js';
import { BatteryProtections } from './state.js';

export function samsungFeature(registry: Pick<DeviceRegistry, 'facet'>, stats: Pick<AgentStats, 'counter'>): DeviceFeature {
  return {
    name: 'samsung-protection',
    notes: (device) => [new BatteryProtections(registry, device.platform).of(device.serial)?.message],
    metrics: () => [stats.counter(PROTECTION_WRITES).metric(), stats.counter(PROTECTION_PROBLEMS).metric()],
  };
}

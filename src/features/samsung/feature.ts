// Samsung's battery protection as the report sees it: where it stands on the
// phone, in the device's message while that is a problem, and its counters;
// what the views show of it (row.ts); and the action (protection.ts), built
// from the parts every action shares.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import type { ActionParts } from '../../actions/parts.js';
import { PROTECTION_PROBLEMS, PROTECTION_WRITES } from './counts.js';
import { SamsungProtection, type GlobalSettings } from './protection.js';
import { BatteryProtections } from './state.js';
import type { DeviceMapping } from '../../actions/device-mapping.js';
import { protectionRow } from './row.js';

export function samsungFeature(
  registry: Pick<DeviceRegistry, 'facet'>,
  stats: Pick<AgentStats, 'counter'>,
  /** The actions' look-up of a device's way, for its row. */
  mapping?: DeviceMapping,
): DeviceFeature<ActionParts<GlobalSettings>> {
  return {
    name: 'samsung-protection',
    ...protectionRow(registry, mapping),
    action: {
      actsOn: 'settings',
      build: (p) =>
        new SamsungProtection({
          runner: p.runner,
          phones: p.phones,
          registry: p.registry,
          settings: p.settings,
          mapping: p.mapping,
          gate: p.gate,
          booking: p.booking,
          stats: p.stats,
          logger: p.logger,
          clock: p.clock,
        }),
      // Without a gate or a cloud to ask, it reads protect_battery and never writes it.
      readOnce: async (p) => {
        const protection = new SamsungProtection({
          phones: p.phones,
          registry: p.registry,
          settings: p.settings,
          booking: undefined,
          stats: p.stats,
          logger: p.logger,
          clock: p.clock,
        });
        protection.devicesChanged();
        await protection.settled();
        await protection.stop();
      },
    },
    notes: (device) => [new BatteryProtections(registry, device.platform).of(device.serial)?.message],
    metrics: () => [stats.counter(PROTECTION_WRITES).metric(), stats.counter(PROTECTION_PROBLEMS).metric()],
  };
}

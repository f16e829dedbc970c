// Recovery as the report sees it: its notes in the device's message (held
// back while booked, a person needed), and its counters. Its kicks, which a
// network phone's message blames instead of the phone, are published as a
// fact the platform reads (src/devices/transport-cut.ts, escalations.ts).
// Its action (recovery.ts) is built from the parts every action shares.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { RecoveryNotebook } from './notes.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { RECOVERY_ACTIONS, RECOVERY_HELD, RECOVERY_USB } from './counts.js';
import type { ActionParts } from '../../actions/parts.js';
import { Recovery, type RecoveryAdb } from './recovery.js';

export function recoveryFeature(registry: Pick<DeviceRegistry, 'facet' | 'get'>, stats: Pick<AgentStats, 'counter'>): DeviceFeature<ActionParts<RecoveryAdb>> {
  const notebook = new RecoveryNotebook(registry);
  return {
    name: 'recovery',
    action: {
      actsOn: 'link',
      build: (p) =>
        new Recovery({
          runner: p.runner,
          adb: p.phones,
          settings: p.settings,
          stats: p.stats,
          logger: p.logger,
          registry: p.registry,
          clock: p.clock,
          booking: p.booking,
          hubPorts: p.hubPorts,
          mapping: p.mapping,
          gate: p.gate,
          ...(p.settings.recovery.powerCycle && { portPower: p.uhubctl }),
          ...(p.usb && { usb: p.usb }),
        }),
    },
    notes: (device) => {
      const notes = notebook.of(device.key);
      return [notes?.heldBack, notes?.attention];
    },
    metrics: () => [stats.counter(RECOVERY_ACTIONS).metric(), stats.counter(RECOVERY_HELD).metric(), stats.counter(RECOVERY_USB).metric()],
  };
}

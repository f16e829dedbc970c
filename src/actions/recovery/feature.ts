// Recovery as the report sees it: its notes in the device's message (held
// back while booked, a person needed), and its counters. Its kicks, which a
// network phone's message blames instead of the phone, are published as a
// fact the platform reads (src/devices/transport-cut.ts, escalations.ts).
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { RecoveryNotebook } from './notes.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { RECOVERY_ACTIONS, RECOVERY_HELD, RECOVERY_USB } from './counts.js';

export function recoveryFeature(registry: Pick<DeviceRegistry, 'facet' | 'get'>, stats: Pick<AgentStats, 'counter'>): DeviceFeature {
  const notebook = new RecoveryNotebook(registry);
  return {
    name: 'recovery',
    notes: (device) => {
      const notes = notebook.of(device.key);
      return [notes?.heldBack, notes?.attention];
    },
    metrics: () => [stats.counter(RECOVERY_ACTIONS).metric(), stats.counter(RECOVERY_HELD).metric(), stats.counter(RECOVERY_USB).metric()],
  };
}

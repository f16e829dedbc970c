// Recovery as the report sees it: its notes in the device's message (held
// back while booked, a person needed) and its kicks, which a network phone's
// message blames instead of the phone; and its counters.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { Escalations } from './escalations.js';
import { RecoveryNotebook } from './notes.js';
import { keyParts } from '../../devices/record.js';
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
    cutSince: (key, since) => {
      const { platform, serial } = keyParts(key);
      const kick = new Escalations(registry, platform)
        .of(serial)
        ?.taken.filter((t) => t.what === 'kick' && t.at >= since)
        .at(-1);
      return kick && { at: kick.at, what: 'recovery kicked its adb transport' };
    },
    metrics: () => [stats.counter(RECOVERY_ACTIONS).metric(), stats.counter(RECOVERY_HELD).metric(), stats.counter(RECOVERY_USB).metric()],
  };
}

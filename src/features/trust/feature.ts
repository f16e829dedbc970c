// Identity trust as the report sees it: a device whose identity another
// device claims says so in its message, and that no host action is done for
// it; and the count of the host actions refused so. The rule itself
// (src/actions/trust.ts) is every action's, beside the runner: they refuse
// through it.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { claimOf, conflictsOf, type Conflict } from '../../devices/claims.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { conflictNote } from '../../actions/trust.js';

export function trustFeature(stats: Pick<AgentStats, 'actionsRefused'>): DeviceFeature {
  // One computation per listing: every device of a report is asked with the same peers.
  let last: { peers: readonly DeviceSnapshot[]; conflicts: Map<string, Conflict> } | undefined;
  const conflictsAmong = (peers: readonly DeviceSnapshot[]): Map<string, Conflict> => {
    if (last?.peers !== peers) last = { peers, conflicts: conflictsOf(peers.map((r) => claimOf(r))) };
    return last.conflicts;
  };
  return {
    name: 'identity-trust',
    notes: (device, peers) => {
      const conflict = conflictsAmong(peers).get(device.serial);
      return [conflict && conflictNote(conflict)];
    },
    metrics: () => [
      {
        name: 'device_agent_actions_refused_total',
        help: 'Host actions (kick, power_cycle, charge_pause) not taken because the identity of the device is in conflict or its USB path is not behind its hub port; once per device and reason.',
        type: 'counter',
        samples: [...stats.actionsRefused].map(([action, value]) => ({ labels: { action }, value })),
      },
    ],
  };
}

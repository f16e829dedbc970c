// Identity trust as the report sees it: a device whose identity another claims says so, and that no host action is done
// for it; and the count of host actions refused. The rule itself (src/actions/trust.ts) is the runner's.
import { ACTIONS_REFUSED, conflictNote } from '../../actions/trust.js';
import { claimOf, conflictsOf, type Conflict } from '../../devices/claims.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { Feature, FeatureContext } from '../context.js';

export function trustFeature(ctx: FeatureContext): Feature {
  // One computation per listing: every device of a report is asked with the same peers.
  let last: { peers: readonly DeviceSnapshot[]; conflicts: Map<string, Conflict> } | undefined;
  const conflictsAmong = (peers: readonly DeviceSnapshot[]) => {
    if (last?.peers !== peers) last = { peers, conflicts: conflictsOf(peers.map((r) => claimOf(r))) };
    return last.conflicts;
  };
  return {
    name: 'identity-trust',
    notes: (device, peers) => {
      const conflict = conflictsAmong(peers).get(device.serial);
      return [conflict && conflictNote(conflict)];
    },
    metrics: () => [ctx.stats.counter(ACTIONS_REFUSED).metric()],
  };
}

// Health's columns in `list`: the battery's health, painted where it is a problem (capacity and cycles are wear's
// columns), and the problems, with why a device not up is not. The charger's voltage and the time held full appear in a
// problem's note, and in `list --json` always.
import type { DeviceRow, RowColumn } from '../../devices/feature-view.js';
import { healthOf } from './row.js';

/** The phone's word for its battery (good, overheat, dead...), where it says one: after CHARGING, painted where it is a problem. */
export const healthColumn: RowColumn = {
  title: 'HEALTH',
  place: { after: 'CHARGING' },
  cell: (r) => {
    const health = healthOf(r).batteryHealth;
    return health === undefined || health === 'UNKNOWN' ? '' : health.toLowerCase().replaceAll('_', ' ');
  },
  paint: (r, t, p) => (healthOf(r).problems?.includes('battery_unhealthy') ? p.warn(t) : t),
  optional: true,
};

/** Last: the features' other columns go before it (health is registered after them). */
export const problemsColumn: RowColumn = {
  title: 'PROBLEMS',
  cell: problemsOf,
  paint: (_r, t, p) => (t ? p.bad(t) : t),
};

/** Health problems, and for a device that is not up, why (its state or its message's gist). */
function problemsOf(row: DeviceRow) {
  const r = healthOf(row);
  const out = [...(r.problems ?? [])];
  if (!r.up && !out.includes('shell_unresponsive')) out.push(r.state === 'device' || r.state === 'paired' ? 'no_inventory' : r.state.split(' ')[0]!);
  return out.join(',');
}

// Health's columns in `list`'s table: the battery's health as the phone
// names it, its capacity and its cycles, each a plain column of its own and
// painted where a battery problem holds, and the problems, with why a device
// that is not up is not (its state, or no inventory), unless a problem says
// it. The charger's voltage and the time held full are in the problem's
// note under the table when they are a problem (charging_voltage_high,
// battery_held_full), and in `list --json` always.
import type { DeviceRow, RowColumn } from '../../devices/feature-view.js';
import { healthOf } from './row.js';

const painted =
  (problem: string): RowColumn['paint'] =>
  (r, t, p) =>
    healthOf(r).problems?.includes(problem) ? p.warn(t) : t;

/** The phone's word for its battery (good, overheat, dead...), where it says one. */
const healthColumn: RowColumn = {
  title: 'HEALTH',
  place: { after: 'CHARGING' },
  cell: (r) => {
    const health = healthOf(r).batteryHealth;
    return health === undefined || health === 'UNKNOWN' ? '' : health.toLowerCase().replaceAll('_', ' ');
  },
  paint: painted('battery_unhealthy'),
  optional: true,
};

/** State of health: what the battery holds, in % of its design capacity, where the phone reports it. */
const capacityColumn: RowColumn = {
  title: 'CAPACITY',
  place: { after: 'CHARGING' },
  cell: (r) => {
    const percent = healthOf(r).batteryHealthPercent;
    return percent === undefined ? '' : `${percent}%`;
  },
  paint: painted('battery_worn'),
  optional: true,
};

const cyclesColumn: RowColumn = {
  title: 'CYCLES',
  place: { after: 'CHARGING' },
  cell: (r) => {
    const cycles = healthOf(r).batteryCycles;
    return cycles === undefined ? '' : String(cycles);
  },
  paint: painted('battery_worn'),
  optional: true,
};

/** The battery's columns, in their order after CHARGING. */
export const batteryColumns: readonly RowColumn[] = [healthColumn, capacityColumn, cyclesColumn];

/** Last: the features' other columns go before it (health is registered after them). */
export const problemsColumn: RowColumn = {
  title: 'PROBLEMS',
  cell: (r) => problemsOf(r),
  paint: (_r, t, p) => (t ? p.bad(t) : t),
};

/** Health problems, and for a device that is not up, why (its state or its message's gist). */
function problemsOf(row: DeviceRow): string {
  const r = healthOf(row);
  const out = [...(r.problems ?? [])];
  if (!r.up && !out.includes('shell_unresponsive')) out.push(r.state === 'device' || r.state === 'paired' ? 'no_inventory' : r.state.split(' ')[0]!);
  return out.join(',');
}

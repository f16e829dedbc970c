// Health's columns in `list`'s table: the battery's wear figures, painted
// where a battery problem holds, and the problems, with why a device that is
// not up is not (its state, or no inventory), unless a problem says it.
import type { DeviceRow, RowColumn } from '../../devices/feature-view.js';
import { healthOf } from './row.js';

const BATTERY_PROBLEMS = new Set(['battery_unhealthy', 'battery_held_full', 'charging_voltage_high', 'battery_worn']);

export const batteryHealthColumn: RowColumn = {
  title: 'BATTERY HEALTH',
  place: { after: 'CHARGING' },
  cell: (r) => batteryHealthOf(r),
  paint: (r, t, p) => (healthOf(r).problems?.some((x) => BATTERY_PROBLEMS.has(x)) ? p.warn(t) : t),
  optional: true,
};

/** Last: the features' other columns go before it (health is registered after them). */
export const problemsColumn: RowColumn = {
  title: 'PROBLEMS',
  cell: (r) => problemsOf(r),
  paint: (_r, t, p) => (t ? p.bad(t) : t),
};

/** The battery's wear figures where the phone has them: health other than good, state of health, cycles, time held full, the charger. */
function batteryHealthOf(row: DeviceRow): string {
  const r = healthOf(row);
  const parts: string[] = [];
  if (r.batteryHealth && r.batteryHealth !== 'GOOD' && r.batteryHealth !== 'UNKNOWN') parts.push(r.batteryHealth);
  if (r.batteryHealthPercent !== undefined) parts.push(`${r.batteryHealthPercent}%`);
  if (r.batteryCycles !== undefined) parts.push(`${r.batteryCycles} cycles`);
  if (r.batteryFullSeconds) parts.push(`full ${shortDuration(r.batteryFullSeconds)}`);
  if (r.chargerMillivolts !== undefined) parts.push(`${(r.chargerMillivolts / 1000).toFixed(1)} V`);
  return parts.join(', ');
}

function shortDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

/** Health problems, and for a device that is not up, why (its state or its message's gist). */
function problemsOf(row: DeviceRow): string {
  const r = healthOf(row);
  const out = [...(r.problems ?? [])];
  if (!r.up && !out.includes('shell_unresponsive')) out.push(r.state === 'device' || r.state === 'paired' ? 'no_inventory' : r.state.split(' ')[0]!);
  return out.join(',');
}

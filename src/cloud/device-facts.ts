// Readings of a DeviceInfo that several views share (health rules, list, per-device metrics), so that they agree.
import type { DeviceState } from './types.js';

/** States in which a device answers its inventory: adb's ready state, and a paired iPhone. */
const READY: ReadonlySet<string> = new Set<DeviceState>(['device', 'paired']);

export function isReadyState(state: string) {
  return READY.has(state);
}

/** Whether the battery charges (CHARGING, FULL) or not (DISCHARGING, NOT_CHARGING); undefined when it does not say. */
export function chargingOf(status: string | undefined) {
  if (status === 'CHARGING' || status === 'FULL') return true;
  if (status === 'DISCHARGING' || status === 'NOT_CHARGING') return false;
  return undefined;
}

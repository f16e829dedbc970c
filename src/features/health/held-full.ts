// How long a battery has been held full on external power. Pure: the caller keeps the state and passes when each
// reading was taken, so a phone reported with its last reading does not grow its time at full.

import { chargingOf } from '../../cloud/device-facts.js';
import type { Battery } from '../../cloud/types.js';

export interface HeldFull {
  /** Observation time (ms) of the first reading of this stretch at full. */
  sinceMs: number;
  /** Observation time (ms) of the latest reading at full. */
  lastMs: number;
}

/** Whether a reading shows the battery full on external power (100 % or FULL, a charger on; CHARGING or FULL where no charger line). */
export function fullOnPower(battery: Battery | undefined, externalPower: boolean | undefined) {
  if (!battery) return false;
  const full = battery.percentage === '100' || battery.status === 'FULL';
  const powered = externalPower ?? chargingOf(battery.status) === true;
  return full && powered;
}

/** The state after one reading at `atMs`: not full ends the stretch; one older than the last (a clock step back) starts anew. */
export function observeFull(previous: HeldFull | undefined, full: boolean, atMs: number) {
  if (!full) return undefined;
  if (previous === undefined || atMs < previous.lastMs) return { sinceMs: atMs, lastMs: atMs };
  return { sinceMs: previous.sinceMs, lastMs: atMs };
}

/** Whole seconds at full so far. */
export function heldFullSeconds(state: HeldFull) {
  return Math.floor((state.lastMs - state.sinceMs) / 1000);
}

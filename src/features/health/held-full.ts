// How long a battery has been held full on external power, from one
// observation after another. Pure: the caller keeps the state per device and
// passes the time each reading was taken (not the time of the report: a phone
// that stops answering is reported with its last reading, and that reading
// must not make the time at full grow).

import { chargingOf } from '../../cloud/device-facts.js';
import type { Battery } from '../../cloud/types.js';

export interface HeldFull {
  /** Observation time (ms) of the first reading of this stretch at full. */
  sinceMs: number;
  /** Observation time (ms) of the latest reading at full. */
  lastMs: number;
}

/**
 * Whether one reading shows the battery full on external power: at 100 % or
 * status FULL, with a charger on. Where the phone does not say whether a
 * charger is on (iPhones, services without the "powered" lines), a status
 * that only a plugged battery has (CHARGING, FULL) stands for it.
 */
export function fullOnPower(battery: Battery | undefined, externalPower: boolean | undefined): boolean {
  if (!battery) return false;
  const full = battery.percentage === '100' || battery.status === 'FULL';
  const powered = externalPower ?? chargingOf(battery.status) === true;
  return full && powered;
}

/**
 * The state after one reading taken at `atMs`. A reading that is not full
 * ends the stretch; one older than the last (the host clock stepped back)
 * starts a new one rather than count time that cannot be told.
 */
export function observeFull(previous: HeldFull | undefined, full: boolean, atMs: number): HeldFull | undefined {
  if (!full) return undefined;
  if (previous === undefined || atMs < previous.lastMs) return { sinceMs: atMs, lastMs: atMs };
  return { sinceMs: previous.sinceMs, lastMs: atMs };
}

/** Whole seconds at full so far. */
export function heldFullSeconds(state: HeldFull): number {
  return Math.floor((state.lastMs - state.sinceMs) / 1000);
}

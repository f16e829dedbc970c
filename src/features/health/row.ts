// What health adds to a device's row, as its columns and gauges read it back.
import type { DeviceRow } from '../../devices/feature-view.js';

/** What health adds to a device's row. */
export interface HealthRow extends DeviceRow {
  /** Seconds the battery has been full on external power without a break; 0 when it is not. */
  batteryFullSeconds?: number;
  /** The most the plugged charger offers (mV). */
  chargerMillivolts?: number;
  /** The health problems that hold on it (rules.ts names). */
  problems?: string[];
}

/** Health's own fields of a row: a view with health registered has them. */
export function healthOf(row: DeviceRow): HealthRow {
  return row;
}

// What wear adds to a device's row, as its column and gauges read it back.
import type { DeviceRow } from '../../devices/feature-view.js';
import type { Reason } from './judge.js';

/** What wear adds to a device's row. */
export interface WearRow extends DeviceRow {
  batteryCycles?: number;
  /** What the battery holds when full, % of its design capacity. */
  batteryHealthPercent?: number;
  wear?: {
    batterySource?: string;
    storageLifeUsedPercent?: number;
    maxAppId?: number;
    leftoverPackages?: number;
    tmpKib?: number;
    /** The soonest finding's days and reason. */
    daysLeft?: number;
    reason?: Reason;
    findings?: Array<{ reason: Reason; days: number }>;
    /** What the phone did not tell, and why ("power_supply: absent"). */
    unread?: string[];
  };
}

/** Wear's own fields of a row: a view with wear registered has them. */
export function wearOf(row: DeviceRow): WearRow {
  return row;
}

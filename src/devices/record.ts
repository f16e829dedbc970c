import type { DeviceInfo } from '../cloud/types.js';

/** Where a device plugs in: one folder under src/platforms each. */
export type Platform = 'android' | 'ios';

/** Where adb says a device hangs on the USB tree (`adb devices -l`). */
export interface UsbPlace {
  usb?: string;
  transportId?: string;
  product?: string;
  /** How many devices adb's long listing shows under this serial: more than 1 when phones share it. */
  sharedBy?: number;
}

/** The last inventory problem of a device, for its message and the logs. */
export interface InventoryFailure {
  text: string;
  /** Wall clock (ms) of the first failure in the current run of failures. */
  since: number;
  /** Monotonic clock (ms) of the latest failure: the planner's backoff counts from it. */
  at: number;
  /** Monotonic clock (ms) of the first failure of the run: recovery's kicks count within a run. */
  first: number;
}

/**
 * Identity and lifecycle of one device connection. One record per
 * (platform, serial); it is created when a source lists the device and
 * dropped when the source no longer does. Only the registry and the device's
 * source write to it; everything else reads snapshots. What a feature keeps
 * of a device (health's battery stretch, recovery's kicks, a charge pause,
 * the platform's cache) is its own facet (devices/facet.ts), not a field here.
 */
export interface DeviceRecord {
  /**
   * platform/serial: unique across sources, and the stable key of the
   * device's state in every facet (see docs/design/architecture.md,
   * "Per-device state").
   */
  readonly key: string;
  readonly platform: Platform;
  /** adb's serial (HOST:PORT over TCP), or the iPhone's udid. */
  readonly serial: string;
  /** The transport's word for it (adb's state text, or usbmuxd's). */
  state: string;
  /** The registry's change counter when the state last changed: the planner compares it with its last report's. */
  changedSeq: number;
  /** Counts the connections of this serial: an inventory's outcome counts only for the connection that asked. */
  connection: number;
  /** The udid the device gave, once it has answered an inventory on some connection. */
  udid?: string;
  usb?: UsbPlace;
  /** The last good inventory of this connection. */
  last?: DeviceInfo;
  /** Wall clock (ms) when the last inventory answered. */
  inventoriedAt?: number;
  /**
   * Inventories in a row that failed, timed out or were cut short. The one
   * count of the agent: the planner's backoff, the health rule, `up` and the
   * recovery kicks all read it. Reset by an inventory that answers in full,
   * and by a new connection (a new state).
   */
  failures: number;
  failure?: InventoryFailure;
  /** A condition the device answered with that is not a failure of it (an iPhone that does not trust this host). */
  notice?: string;
  /** Monotonic clock (ms) when the latest inventory of the device started. */
  askedAt?: number;
  /** Whether an inventory of the device is running now. */
  probing: boolean;
}

/** A record as readers see it. */
export type DeviceSnapshot = Readonly<DeviceRecord>;

export function recordKey(platform: Platform, serial: string): string {
  return `${platform}/${serial}`;
}

/** The platform and serial a record key names (recordKey's inverse). */
export function keyParts(key: string): { platform: Platform; serial: string } {
  const at = key.indexOf('/');
  return { platform: key.slice(0, at) as Platform, serial: key.slice(at + 1) };
}

import type { DeviceInfo } from '../cloud/types.js';

/** Where a device plugs in: one folder under src/platforms each. */
export type Platform = 'android' | 'ios';

/** Where adb says a device hangs on the USB tree (`adb devices -l`). */
export interface UsbPlace {
  usb?: string;
  transportId?: string;
  product?: string;
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
 * Everything the agent knows about one device connection. One record per
 * (platform, serial); it is created when a source lists the device and
 * dropped when the source no longer does. Only the registry and the device's
 * source write to it; everything else reads snapshots.
 */
export interface DeviceRecord {
  /** platform/serial: unique across sources. */
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
  /**
   * The platform's per-connection readings (the Android tier cache, the
   * iPhone's root domain): owned by the source, opaque to everyone else,
   * dropped with the connection.
   */
  cache?: unknown;
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
  /** Health problems that hold now (health/rules.ts names). */
  problems: readonly string[];
  /** The battery's state for the health rules: how long it has been full on power, its wear figures (health/monitor.ts). */
  battery?: unknown;
  /** Transport kicks and port power cycles (monotonic ms, with the failure count at the time): recovery's history. */
  kicks: Array<{ at: number; failures: number }>;
  /** Why recovery leaves the device alone now (booked in the cloud, or the cloud could not say): its message carries it. */
  heldBack?: string;
  /** The hold recovery last counted in its metrics (the action and the cloud's answer behind it): one count per answer, not per look. */
  holdCounted?: string;
  /** Recovery can do no more for it: its message asks for a person, and says why. */
  attention?: string;
  /** Logged once: a TCP device that has not said who it is is left out of reports. */
  leftOutLogged: boolean;
}

/** A record as readers see it. */
export type DeviceSnapshot = Readonly<DeviceRecord>;

export function recordKey(platform: Platform, serial: string): string {
  return `${platform}/${serial}`;
}

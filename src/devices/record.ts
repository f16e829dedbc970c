/** Where a device plugs in: one folder under src/platforms each. */
export type Platform = 'android' | 'ios';

/** Where a device's source says it hangs on the USB tree: adb's usb path (`adb devices -l`), usbmuxd's LocationID. */
export interface UsbPlace {
  usb?: string;
  /** usbmuxd's LocationID for an iPhone: on Linux, (bus << 16) | device address. */
  location?: number;
  transportId?: string;
  product?: string;
  /** How many devices adb's long listing shows under this serial: more than 1 when phones share it. */
  sharedBy?: number;
}

/**
 * Identity and lifecycle of one device connection, as its source lists it.
 * One record per (platform, serial); it is created when a source lists the
 * device and dropped when the source no longer does. Only the registry
 * writes it; everything else reads snapshots. What the device said of itself
 * (its udid, its last inventory, its failures) is its reading
 * (devices/readings.ts), written by the source that asked it; what a feature
 * keeps of a device (health's battery stretch, recovery's kicks, a charge
 * pause, the platform's cache) is its own facet (devices/facet.ts). Neither
 * is a field here.
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
  usb?: UsbPlace;
}

export function recordKey(platform: Platform, serial: string): string {
  return `${platform}/${serial}`;
}

/** The platform and serial a record key names (recordKey's inverse). */
export function keyParts(key: string): { platform: Platform; serial: string } {
  const at = key.indexOf('/');
  return { platform: key.slice(0, at) as Platform, serial: key.slice(at + 1) };
}

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
 * Identity and lifecycle of one device connection, as its source lists it: one record per (platform, serial), from
 * when a source lists the device until it no longer does. Only the registry writes it. What the device said of itself
 * is its reading (readings.ts); what a feature keeps of it is a facet (facet.ts).
 */
export interface DeviceRecord {
  /** platform/serial: unique across sources, and the stable key of the device's state in every facet. */
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

export function recordKey(platform: Platform, serial: string) {
  return `${platform}/${serial}`;
}

/** The platform and serial a record key names (recordKey's inverse). */
export function keyParts(key: string) {
  const at = key.indexOf('/');
  return { platform: key.slice(0, at) as Platform, serial: key.slice(at + 1) };
}

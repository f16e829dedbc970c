// A fact the USB layer publishes for readiness: a phone its source no longer lists while it is still on a USB port, so
// that it is reported not ready with that cause rather than gone. Keyed by udid: its record went with the listing.
import { facetKey } from './facet.js';

/** What the kernel's evidence says beyond the port: in its bootloader, or offering its source's interface unclaimed. */
export type OffListMode = 'bootloader' | 'offers-source';

export interface OffSource {
  /** The USB port sysfs shows its serial on ("1-1.3"). */
  port: string;
  /** The device's platform (DeviceInfo.platformName): a feature that reads one platform's phones selects by it. */
  platformName: string;
  /** What no longer lists it, as its platform names it (adb, usbmuxd): what cannot reach it. */
  source: string;
  /** Why a phone on a port may be off that list, and what to do, as its platform words it. */
  causes: string;
  /** What the interfaces it offers on the port show (its bootloader, or its source's own interface); none when they show nothing more. */
  mode?: OffListMode;
}

/** Set while the phone is on a port and off its source's list, deleted when either ends. */
export const OFF_SOURCE = facetKey<OffSource>('off-source', 'device');

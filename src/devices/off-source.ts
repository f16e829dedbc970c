// A fact one feature publishes for the others: a phone its source (adb,
// usbmuxd) no longer lists while the layer below still has it on a USB
// port. The USB layer writes it (src/features/usb/), readiness reads it
// (src/features/readiness/), so that such a phone is reported as not ready
// with that cause rather than as gone, and neither feature imports the
// other. Keyed by the udid the cloud knows the phone by: its record, and
// with it its stable key, went when its source stopped listing it.
import { facetKey } from './facet.js';

/**
 * What the kernel's evidence says of a phone off its source's list beyond
 * its port: `bootloader`, it is in its bootloader, not its OS; `offers-source`,
 * it offers its source's own interface, so its settings let the source in and
 * a service on the host has not taken it.
 */
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

// What the features above adb need from the USB layer below it (recovery, the in-service clock, the flight recorder), as
// a read-only capability under USB_EVIDENCE, so that none imports the layer and their policies get the answers as values.
import { sharedKey } from '../util/shared-parts.js';
import { usbBus } from '../util/usb-path.js';
import type { UsbPlace } from './record.js';

/** What the USB layer blames for a port's failures, with the evidence a person can check. */
export interface UsbBlame {
  /** controller, hub-power, hub, port or phone. */
  layer: string;
  subject: string;
  evidence: string;
}

/** A phone as the USB layer sees it: enumerated on a port, or nowhere with a disconnect or failed enumeration last. */
export type UsbSeen =
  | { enumerated: true; port: string }
  | {
      enumerated: false;
      port: string;
      /** The hub the port hangs off ("1-1.4" for "1-1.4.2"). */
      hub: string;
      /** The kernel's last word on the port. */
      last: 'disconnected' | 'failing enumeration';
      /** Wall ms of that word. */
      at: number;
      /** What the layer blames for the port's failures, when it blames something. */
      blame?: UsbBlame;
    };

/** Whether a port dropped and enumerated again in the kernel's log since a time. */
export interface PortCycleSeen {
  dropped: boolean;
  back: boolean;
}

export interface UsbEvidence {
  /**
   * The port a phone's source places it on (adb's usb path, usbmuxd's LocationID), which the phone cannot choose;
   * undefined for a network phone or a place the layer cannot map. Any device may print any serial: a port found by one
   * links no phone to it.
   */
  placeOf(usb: UsbPlace | undefined): string | undefined;
  /** What the layer says of a phone with these USB serials (adb's usb path, when adb gives one, first); undefined: it cannot say (sysfs or the kernel log not read, or never seen). */
  seen(serials: readonly string[], port?: string): UsbSeen | undefined;
  /** What the kernel log says of the port since wall ms `since`; undefined when the kernel log is not read. */
  cycled(port: string, since: number): PortCycleSeen | undefined;
  /** What the layer blames for a port's failures now (its controller, hub, the hub's power, the port), when anything. */
  blame?(port: string): UsbBlame | undefined;
  /** Hears each kernel line the layer classified, with the port or hub it names and its wall ms (the flight recorder); returns the way to stop. */
  follow?(listener: (line: { port?: string; hub?: string; text: string; at: number }) => void): () => void;
}

/** Where the USB layer offers its word to the other features (FeatureContext.shared). */
export const USB_EVIDENCE = sharedKey<UsbEvidence>('usb-evidence');

/**
 * The port a phone's source places it on: adb's usb path, else usbmuxd's LocationID as the USB layer maps it (none
 * without the layer). Never where a serial was printed: any device may print any serial.
 */
export function sourcePort(usb: UsbEvidence | undefined, place: UsbPlace | undefined) {
  return usbBus(place?.usb) !== undefined ? place?.usb : usb?.placeOf(place);
}

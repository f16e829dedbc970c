// The kernel's USB messages sorted by what they say of a port, a hub or a controller. Pure. Port paths are sysfs's
// device names ("1-1.4.2"), as adb reports "usb:1-1.4.2"; the kernel's three ways to name a place become that form:
//   "usb 1-1.4.2: ..."            the device on that port
//   "usb usb1-port6: ..."          root hub of bus 1, port 6  -> "1-6"
//   "usb 1-1.3-port1: ..."         hub 1-1.3, port 1          -> "1-1.3.1"
//   "hub 1-1:1.0: ... port 3"      hub 1-1's interface, port 3 -> "1-1.3"
// Controller lines name the controller by its device ("xhci_hcd 0000:00:14.0:"). The messages: messages.ts.
import { dropUndefined } from '../../util/drop-undefined.js';
import { usbBus } from '../../util/usb-path.js';
import { compileFormat } from './format.js';
import { KERNEL_MESSAGES, type KernelMessage, type Named, type Role, type UsbEventKind } from './messages.js';

export interface UsbEvent {
  kind: UsbEventKind;
  /** A cause counts; a consequence follows a cause printed before it and never counts; a fact is a state (messages.ts). */
  role: Role;
  /** The catalogue entry the line matched (messages.ts). */
  id: string;
  /** The port path ("1-1.4.2"), when the line names a port or the device on one. */
  port?: string;
  /** The hub's own path ("1-1", "usb1" for a root hub), when the line names a hub itself. */
  hub?: string;
  /** The controller's device name ("0000:00:14.0"), when the line names a controller. */
  controller?: string;
  /** The bus a controller registered, for that fact. */
  bus?: number;
  /** The device's USB serial, for a SerialNumber line: the device's own words, data. */
  serial?: string;
  /** The negotiated speed, for a new device ("high-speed"). */
  speed?: string;
  /** The message itself, for a controller's line: the kernel's own words (no device chooses them), quoted as evidence. */
  said?: string;
}

const CONTROLLER_DRIVER = /^(?:xhci[_-][\w-]+|ehci[_-][\w-]+|ohci[_-][\w-]+|uhci[_-][\w-]+|dwc_otg|dwc2|ci_hdrc|musb-hdrc)$/;

/** The catalogue compiled once, by whom its messages name. */
const BY_NAMED = Map.groupBy(
  KERNEL_MESSAGES.map((entry) => ({ entry, pattern: compileFormat(entry.format, entry.args) })),
  (c): Named | undefined => c.entry.named,
);

/**
 * What a kernel message says of USB, or undefined when the catalogue has it not. Read as "DRIVER NAME: TEXT" (the
 * kernel's words before the colon), TEXT matching an entry's format whole: a device string inside it is matched only as
 * the data of the line that prints it.
 */
export function classifyUsbLine(text: string) {
  const head = /^(\S+) (\S+): (.*)$/s.exec(text.replace(/\s+$/, ''));
  if (!head) return undefined;
  const [, driver = '', name = '', message = ''] = head;
  if (CONTROLLER_DRIVER.test(driver)) {
    // Any driver's messages, then its family's (xhci, ehci, ohci).
    return match(['controller', /^[eox]hci/.exec(driver)?.[0] as Named | undefined], message, { controller: name });
  }
  if (driver === 'hub') {
    // "hub 1-1:1.0": the hub's interface; the hub is "1-1", a root hub "1-0" (bus 1's, "usb1").
    const hub = /^(\d+-[\d.]+):\d+\.\d+$/.exec(name)?.[1];
    return hub === undefined ? undefined : match(['hub'], message, { hub });
  }
  if (driver !== 'usb') return undefined;
  if (usbBus(name) !== undefined) return match(['device'], message, { port: name });
  const port = portDeviceOf(name);
  return port === undefined ? undefined : match(['port'], message, { port });
}

type On = Pick<UsbEvent, 'port' | 'hub' | 'controller'>;

/** The first entry of these groups whose format the message matches, as an event on `on`. */
function match(groups: ReadonlyArray<Named | undefined>, message: string, on: On) {
  for (const group of groups) {
    for (const { entry, pattern } of BY_NAMED.get(group) ?? []) {
      const m = pattern.exec(message);
      if (!m) continue;
      const values = m.slice(1);
      if (entry.values && !Object.entries(entry.values).every(([i, allowed]) => allowed!.includes(values[Number(i)] ?? ''))) continue;
      const event = eventOf(entry, values, on);
      if (on.controller !== undefined) event.said = message;
      return event;
    }
  }
}

function eventOf(entry: KernelMessage, values: readonly string[], on: On) {
  const field = (name: keyof NonNullable<KernelMessage['fields']>) => values[entry.fields?.[name] ?? -1];
  // The older wordings name the port in the text: "hub 1-1:1.0: cannot disable port 3". Hub "1-0" is bus 1's root hub:
  // "usb1", its port 3 "1-3"; hub "1-1"'s port 3 is "1-1.3".
  const number = field('port');
  const root = /^(\d+)-0$/.exec(on.hub ?? '')?.[1];
  const bus = field('bus');
  return dropUndefined<UsbEvent>({
    kind: entry.kind,
    role: entry.role,
    id: entry.id,
    controller: on.controller,
    ...(on.hub !== undefined && (number === undefined ? { hub: root ? `usb${root}` : on.hub } : { port: root ? `${root}-${number}` : `${on.hub}.${number}` })),
    // A device line about a hub itself ("usb 1-1.2: clear tt 1 (9082) error -71") names the hub, not a port's failure.
    ...(on.port !== undefined && (entry.kind === 'hub-error' ? { hub: on.port } : { port: on.port })),
    bus: bus === undefined ? undefined : Number(bus),
    serial: field('serial'),
    speed: field('speed'),
  });
}

/** The port path a port device's name stands for: "usb1-port6" is root port 6 of bus 1 ("1-6"), "1-1.3-port1" port 1 of hub 1-1.3. */
function portDeviceOf(name: string) {
  const m = /^(?:usb(\d+)|(\d+-\d+(?:\.\d+)*))-port(\d+)$/.exec(name);
  return !m ? undefined : m[1] ? `${m[1]}-${m[3]}` : `${m[2]}.${m[3]}`;
}

/**
 * A speed fallback from sysfs: the phone's link below its port's. Every phone is high-speed (480 Mb/s) at least, so one
 * below 480 on a port of 480 or more has fallen back: the cable or a worn plug. A phone at 480 on a SuperSpeed hub is
 * not judged: most phones are USB 2 devices, so sysfs cannot tell a USB 2 cable on a USB 3 phone.
 */
export function speedFallback(port: string, phoneMbps: number, portMbps: number) {
  if (!(phoneMbps > 0) || !(portMbps > 0) || phoneMbps >= portMbps || phoneMbps >= 480) return undefined;
  return `port ${port}: phone at ${phoneMbps} Mb/s on a ${portMbps} Mb/s port: a charge-grade or USB 1 cable, or a worn plug; swap the cable first`;
}

// The kernel's USB messages sorted by what they say of a port, a hub or a
// controller. Pure. Port paths are sysfs's device names ("1-1.4.2": bus 1,
// then the port number at each hub), the same path adb reports as
// "usb:1-1.4.2"; the kernel names the same place three ways, and all three
// are brought to that one form here:
//   "usb 1-1.4.2: ..."            the device on that port
//   "usb usb1-port6: ..."          root hub of bus 1, port 6  -> "1-6"
//   "usb 1-1.3-port1: ..."         hub 1-1.3, port 1          -> "1-1.3.1"
//   "hub 1-1:1.0: ... port 3"      hub 1-1's interface, port 3 -> "1-1.3"
// Controller lines name the controller by its device ("xhci_hcd 0000:00:14.0:").

export type UsbEventKind =
  | 'enumeration-failed'
  | 'reset'
  | 'disconnect'
  | 'new-device'
  | 'serial'
  | 'slow-speed'
  | 'over-current'
  | 'controller-limit'
  | 'hub-port-error'
  | 'controller-died';

/** The kinds that count as a failure of the port, hub or controller they name. */
export const FAILURE_KINDS: ReadonlySet<UsbEventKind> = new Set([
  'enumeration-failed',
  'reset',
  'slow-speed',
  'over-current',
  'controller-limit',
  'hub-port-error',
  'controller-died',
]);

export interface UsbEvent {
  kind: UsbEventKind;
  /** The port path ("1-1.4.2"), when the line names a port or the device on one. */
  port?: string;
  /** The controller's device name ("0000:00:14.0"), when the line names a controller. */
  controller?: string;
  /** The device's USB serial, for a SerialNumber line. */
  serial?: string;
  /** The negotiated speed, for a new device ("high-speed"). */
  speed?: string;
}

const CONTROLLER_DRIVER = /^(?:xhci[_-]hcd|ehci[_-][\w-]+|ohci[_-][\w-]+|uhci_hcd|dwc_otg|dwc2)$/;

/** What a kernel message says of USB, or undefined when it says nothing this feature reads. */
export function classifyUsbLine(text: string): UsbEvent | undefined {
  const head = /^(\S+) (\S+): (.*)$/.exec(text.trim());
  if (!head) return undefined;
  const [, driver, name, message] = head as unknown as [string, string, string, string];
  if (CONTROLLER_DRIVER.test(driver)) return controllerEvent(name, message);
  if (driver === 'hub') return hubEvent(name, message);
  if (driver !== 'usb') return undefined;
  const port = portOf(name);
  if (port === undefined) return undefined;
  return deviceEvent(port, message);
}

function deviceEvent(port: string, message: string): UsbEvent | undefined {
  if (/device descriptor read\/\w+, error -\d+/.test(message)) return { kind: 'enumeration-failed', port };
  if (/device not accepting address \d+, error -\d+/.test(message)) return { kind: 'enumeration-failed', port };
  if (/unable to enumerate USB device/.test(message)) return { kind: 'enumeration-failed', port };
  if (/^reset \S+ USB device number \d+ using /.test(message)) return { kind: 'reset', port };
  if (/^USB disconnect, device number \d+/.test(message)) return { kind: 'disconnect', port };
  const fresh = /^new (\S+) USB device number \d+ using /.exec(message);
  if (fresh) return { kind: 'new-device', port, speed: fresh[1]! };
  const serial = /^SerialNumber: (\S+)\s*$/.exec(message);
  if (serial) return { kind: 'serial', port, serial: serial[1]! };
  if (/not running at top speed; connect to a high speed hub/.test(message)) return { kind: 'slow-speed', port };
  if (/over-current (?:condition|change)/.test(message)) return { kind: 'over-current', port };
  if (/Not enough bandwidth for new device state/.test(message)) return { kind: 'controller-limit', port };
  if (/not enough host controller resources/i.test(message)) return { kind: 'controller-limit', port };
  if (/couldn't allocate usb_device/.test(message)) return { kind: 'controller-limit', port };
  if (/disabled by hub \(EMI\?\)/.test(message)) return { kind: 'hub-port-error', port };
  return undefined;
}

function hubEvent(name: string, message: string): UsbEvent | undefined {
  // "hub 1-1:1.0": the hub's interface; its ports are children of "1-1".
  const hub = /^(\d+-[\d.]+):\d+\.\d+$/.exec(name)?.[1];
  const portNumber = /port (\d+)/.exec(message)?.[1];
  if (hub === undefined || portNumber === undefined) return undefined;
  const port = childPort(hub, portNumber);
  if (/cannot disable port/.test(message)) return { kind: 'hub-port-error', port };
  if (/over-current (?:change|condition)/.test(message)) return { kind: 'over-current', port };
  return undefined;
}

function controllerEvent(controller: string, message: string): UsbEvent | undefined {
  if (/host controller not responding, assume dead|HC died; cleaning up/.test(message)) return { kind: 'controller-died', controller };
  if (/Max number of devices this xHCI host supports is/.test(message)) return { kind: 'controller-limit', controller };
  if (/Not enough bandwidth|not enough host controller resources/i.test(message)) return { kind: 'controller-limit', controller };
  return undefined;
}

/** The port path a kernel device name stands for, or undefined for a name that is not one (an interface, a root hub). */
function portOf(name: string): string | undefined {
  if (/^\d+-\d+(?:\.\d+)*$/.test(name)) return name;
  const rootPort = /^usb(\d+)-port(\d+)$/.exec(name);
  if (rootPort) return `${rootPort[1]}-${rootPort[2]}`;
  const hubPort = /^(\d+-\d+(?:\.\d+)*)-port(\d+)$/.exec(name);
  if (hubPort) return `${hubPort[1]}.${hubPort[2]}`;
  return undefined;
}

/** Port N of a hub: "1-0" is bus 1's root hub, so its port 3 is "1-3"; hub "1-1"'s port 3 is "1-1.3". */
function childPort(hub: string, port: string): string {
  const root = /^(\d+)-0$/.exec(hub);
  return root ? `${root[1]}-${port}` : `${hub}.${port}`;
}

/** The hub a port hangs off ("1-1.4.2" -> "1-1.4"; "1-3" -> the root hub "usb1"). */
export function hubOf(port: string): string {
  const dot = port.lastIndexOf('.');
  return dot >= 0 ? port.slice(0, dot) : `usb${busOf(port)}`;
}

/** The bus number of a port path ("1-1.4.2" -> 1). */
export function busOf(port: string): number {
  return Number(port.slice(0, port.indexOf('-')));
}

/**
 * A speed fallback read from sysfs: the phone's link speed (its `speed`,
 * Mb/s) below what its port runs at (the parent hub's or root hub's
 * `speed`). Every phone is a high-speed (480 Mb/s) device at least, so one
 * below 480 on a port of 480 or more has fallen back, which is the cable (a
 * charge-grade or USB 1 cable, its data lines failing) or a worn plug, not
 * the phone's software. A phone at 480 on a SuperSpeed hub is not judged:
 * the kernel puts a high-speed link on the hub's USB 2 half, whose speed is
 * 480, and most phones are USB 2 devices anyway, so sysfs cannot tell a USB 2
 * cable on a USB 3 phone from a USB 2 phone.
 */
export function speedFallback(port: string, phoneMbps: number, portMbps: number): string | undefined {
  if (!(phoneMbps > 0) || !(portMbps > 0) || phoneMbps >= portMbps || phoneMbps >= 480) return undefined;
  return `port ${port}: phone at ${phoneMbps} Mb/s on a ${portMbps} Mb/s port: a charge-grade or USB 1 cable, or a worn plug; swap the cable first`;
}

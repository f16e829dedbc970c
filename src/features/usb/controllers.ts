// How many USB devices each host controller carries, against what a controller usually takes: USB allows 127 addresses,
// but xhci_hcd reports "Max number of devices this xHCI host supports is 32" on common Intel controllers (marc.merlins.org,
// 2018-12-20), and common xHCI implementations cap endpoints at 96, about 32 devices (acroname.com, "Why can't I connect
// more USB 3.0 devices"). Hubs take a slot each, so a lab meets it early.

import { controllersOfBuses, namesIn } from './sysfs.js';
import { usbBus } from '../../util/usb-path.js';
import type { CheckResult } from '../../platforms/doctor.js';

const USB_DEVICES_PER_CONTROLLER = 32;
/** Warn this close to the limit: the next hub or phone may not enumerate. */
const MARGIN = 4;

/** A device as the service's long listing places it: its serial, and its Linux usb path ("1-1.4.2"; absent over TCP). */
export interface PlacedDevice {
  serial: string;
  usb?: string;
}

export interface ControllerLoad {
  /** The controller's device (its PCI address), or "bus N" when sysfs does not say. */
  controller: string;
  buses: number[];
  /** USB devices on its buses, hubs included, root hubs not. */
  devices: number;
}

/** Devices per host controller from sysfs; undefined where there is no sysfs (a container without /sys/bus/usb). */
export function readUsbControllers(root: string) {
  const names = namesIn(root);
  if (!names) return undefined;
  // Not a link (a copy of sysfs): one controller per bus.
  const linked = controllersOfBuses(root);
  // "1-1.4.2" is a device; "1-1.4.2:1.0" one of its interfaces.
  const devices = Map.groupBy(
    names.flatMap((name) => usbBus(name) ?? []),
    (bus) => bus,
  );
  const buses = names.flatMap((name) => /^usb(\d+)$/.exec(name)?.[1] ?? []).map(Number);
  return [
    ...Map.groupBy(
      buses.sort((a, b) => a - b),
      (bus) => linked.get(bus) ?? `bus ${bus}`,
    ),
  ].map(([controller, own]) => ({
    controller,
    buses: own,
    devices: own.reduce((n, bus) => n + (devices.get(bus)?.length ?? 0), 0),
  }));
}

/** One item per controller that carries adb devices, with a warning near the usual limit; without sysfs, adb's paths per bus. */
export function usbItems(
  devices: readonly PlacedDevice[],
  controllers: readonly ControllerLoad[] | undefined,
  phonePorts: readonly string[] = [],
): CheckResult[] {
  // Phones sysfs shows on a port that adb does not list there (an iPhone, a phone with USB debugging off) load the controller too.
  const adbPaths = new Set(devices.map((d) => d.usb));
  const more = phonePorts.filter((p) => !adbPaths.has(p));
  const perBus = Map.groupBy(
    [...devices.map((d) => d.usb), ...more].flatMap((p) => usbBus(p) ?? []),
    (bus) => bus,
  );
  const what = more.length ? 'phones' : 'adb devices';
  const known = controllers ?? [];
  const unknown = [...perBus.keys()].filter((bus) => !known.some((c) => c.buses.includes(bus)));
  const loads = [...known, ...unknown.map((bus) => ({ controller: `bus ${bus}`, buses: [bus], devices: perBus.get(bus)!.length }))]
    .map((c) => ({ ...c, phones: c.buses.reduce((n, b) => n + (perBus.get(b)?.length ?? 0), 0) }))
    .filter((l) => l.phones > 0);
  return loads.map((l) => {
    const where = `USB controller ${l.controller} (bus ${l.buses.join(', ')})`;
    const counted = l.devices === l.phones ? `${l.phones} ${what}` : `${l.devices} USB devices, hubs included, ${l.phones} of them ${what}`;
    if (l.devices < USB_DEVICES_PER_CONTROLLER - MARGIN) return { status: 'ok', finding: `${where}: ${counted}` };
    return {
      status: 'warn',
      finding: `${where}: ${counted}; many xHCI controllers take no more than ${USB_DEVICES_PER_CONTROLLER}`,
      advice:
        'phones past the limit do not enumerate or drop at random: spread the hubs over more controllers (another port group or a PCIe USB card); `dmesg | grep -i "xhci.*max number"` shows the limit of this one',
    };
  });
}

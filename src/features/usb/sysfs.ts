// What sysfs says of the USB tree that the kernel's lines do not: each bus's host controller, which serial is
// enumerated on which port, and the interfaces a device offers there.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { usbBus } from '../../util/usb-path.js';

/** A file's text, trimmed; undefined where it cannot be read (gone while read, a copied sysfs tree without it, no such unit). */
export function readText(file: string) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The names in a folder; undefined where it cannot be read (no sysfs). */
export function namesIn(dir: string) {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

/** The controller of each bus, from the root hubs' links; empty where there is no sysfs. */
export function controllersOfBuses(root: string) {
  const out = new Map<number, string>();
  for (const name of namesIn(root) ?? []) {
    const bus = /^usb(\d+)$/.exec(name)?.[1];
    try {
      // usbN links to .../<controller>/usbN: the root hub's parent is its controller.
      if (bus) out.set(Number(bus), basename(dirname(join(root, readlinkSync(join(root, name))))));
    } catch {
      // Not a link (a copied tree): the bus stands for its controller.
    }
  }
  return out;
}

/** The USB serial sysfs shows on a port; undefined for none, or one longer than the kernel prints. */
function serialOn(root: string, port: string) {
  const serial = readText(join(root, port, 'serial'));
  return serial && serial.length <= 128 ? serial : undefined;
}

/** Every port each USB serial is enumerated on: clones sharing a serial are on several, which sysfs cannot tell apart. */
export function portsBySerial(root: string) {
  const out = new Map<string, string[]>();
  for (const name of (namesIn(root) ?? []).filter((n) => usbBus(n) !== undefined).sort()) {
    // No serial: a hub, or a device that gives none.
    const serial = serialOn(root, name);
    if (serial !== undefined) out.set(serial, [...(out.get(serial) ?? []), name]);
  }
  return out;
}

/** The link speed (Mb/s) sysfs shows of a device or a hub; NaN where it cannot be read. */
export function speedOf(root: string, name: string) {
  return Number(readText(join(root, name, 'speed')));
}

/** The interfaces the device on a port offers (class, subclass, protocol); one going away as the device does is left out. */
export function interfacesOnPort(root: string, port: string) {
  return (namesIn(join(root, port)) ?? [])
    .filter((n) => n.startsWith(`${port}:`))
    .sort()
    .flatMap((name) => {
      const [c, s, p] = ['bInterfaceClass', 'bInterfaceSubClass', 'bInterfaceProtocol'].map((f) => readText(join(root, port, name, f)));
      return c === undefined || s === undefined || p === undefined ? [] : [{ class: c, subclass: s, protocol: p }];
    });
}

/** The USB serial of the device on a port, and whether it is a hub (never a phone, whatever serial it gives). */
export function deviceOnPort(root: string, port: string) {
  const serial = serialOn(root, port);
  return serial === undefined ? undefined : { serial, hub: readText(join(root, port, 'bDeviceClass')) === '09' };
}

/**
 * The port of the device usbmuxd locates by its LocationID, (bus << 16) | address on Linux (usbmuxd's src/usb.c), from
 * sysfs's busnum and devnum: numbers the kernel gives, which a device cannot choose.
 */
export function portOfLocation(root: string, location: number) {
  if (!Number.isInteger(location) || location <= 0) return undefined;
  return (namesIn(root) ?? []).find((name) => usbBus(name) === location >>> 16 && Number(readText(join(root, name, 'devnum'))) === (location & 0xffff));
}

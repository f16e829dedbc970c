// What sysfs says of the USB tree that the kernel's lines do not: each bus's host controller, which serial is
// enumerated on which port, and the interfaces a device offers there.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { UsbInterface } from '../../platforms/source.js';

/** The controller of each bus, from the root hubs' links; empty where there is no sysfs. */
export function controllersOfBuses(root: string): Map<number, string> {
  const out = new Map<number, string>();
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = /^usb(\d+)$/.exec(name);
    if (!m) continue;
    try {
      out.set(Number(m[1]), basename(dirname(join(root, readlinkSync(join(root, name))))));
    } catch {
      // Not a link (a copied tree): the bus stands for its controller.
    }
  }
  return out;
}

/** Every port each USB serial is enumerated on: clones sharing a serial are on several, which sysfs cannot tell apart. */
export function portsBySerial(root: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of names.filter((n) => /^\d+-\d+(?:\.\d+)*$/.test(n)).sort()) {
    try {
      const serial = readFileSync(join(root, name, 'serial'), 'utf8').trim();
      if (serial === '' || serial.length > 128) continue;
      const ports = out.get(serial);
      if (ports) ports.push(name);
      else out.set(serial, [name]);
    } catch {
      // No serial: a hub, or a device that gives none.
    }
  }
  return out;
}

/** The link speeds (Mb/s) of the device on a port and of the hub it hangs off; undefined where either cannot be read. */
export function speedsOfPort(root: string, port: string): { phone: number; port: number } | undefined {
  const dot = port.lastIndexOf('.');
  const parent = dot >= 0 ? port.slice(0, dot) : `usb${port.slice(0, port.indexOf('-'))}`;
  const read = (name: string): number | undefined => {
    try {
      const n = Number(readFileSync(join(root, name, 'speed'), 'utf8').trim());
      return Number.isFinite(n) && n > 0 ? n : undefined;
    } catch {
      return undefined;
    }
  };
  const phone = read(port);
  const hub = phone === undefined ? undefined : read(parent);
  return phone === undefined || hub === undefined ? undefined : { phone, port: hub };
}

/** The interfaces the device on a port offers (class, subclass, protocol); empty where none can be read. */
export function interfacesOnPort(root: string, port: string): UsbInterface[] {
  const dir = join(root, port);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: UsbInterface[] = [];
  for (const name of names.filter((n) => n.startsWith(`${port}:`)).sort()) {
    try {
      const read = (file: string): string => readFileSync(join(dir, name, file), 'utf8').trim();
      out.push({ class: read('bInterfaceClass'), subclass: read('bInterfaceSubClass'), protocol: read('bInterfaceProtocol') });
    } catch {
      // An interface going away as the device does: the others still say what they say.
    }
  }
  return out;
}

/** The USB serial of the device on a port, and whether it is a hub (never a phone, whatever serial it gives). */
export function deviceOnPort(root: string, port: string): { serial: string; hub: boolean } | undefined {
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(join(root, port, file), 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const serial = read('serial');
  if (serial === undefined || serial === '' || serial.length > 128) return undefined;
  return { serial, hub: read('bDeviceClass') === '09' };
}

/**
 * The port of the device usbmuxd locates by its LocationID, (bus << 16) | address on Linux (usbmuxd's src/usb.c), from
 * sysfs's busnum and devnum: numbers the kernel gives, which a device cannot choose.
 */
export function portOfLocation(root: string, location: number): string | undefined {
  if (!Number.isInteger(location) || location <= 0) return undefined;
  const bus = location >>> 16;
  const devnum = location & 0xffff;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (!/^\d+-\d+(?:\.\d+)*$/.test(name) || Number(name.slice(0, name.indexOf('-'))) !== bus) continue;
    try {
      if (Number(readFileSync(join(root, name, 'devnum'), 'utf8').trim()) === devnum) return name;
    } catch {
      // Gone while read, or a copied tree without devnum.
    }
  }
  return undefined;
}

// What sysfs says of the USB tree that the kernel's lines do not: which
// host controller each bus belongs to ("usb1" links to
// .../0000:00:14.0/usb1; a copied tree without links gives "bus N"), and
// which serial is enumerated on which port.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

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

/**
 * The USB serial of each device the kernel enumerated, by serial, with its
 * port path: "1-1.4.2/serial". Hubs and devices without one are left out.
 */
export function serialsOnPorts(root: string): Map<string, string> {
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+-\d+(?:\.\d+)*$/.test(name)) continue;
    try {
      const serial = readFileSync(join(root, name, 'serial'), 'utf8').trim();
      if (serial !== '' && serial.length <= 128) out.set(serial, name);
    } catch {
      // No serial: a hub, or a device that gives none.
    }
  }
  return out;
}

// What sysfs says of the USB tree that the kernel's lines do not: which
// host controller each bus belongs to ("usb1" links to
// .../0000:00:14.0/usb1). A copied tree without links gives "bus N".
import { readdirSync, readlinkSync } from 'node:fs';
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

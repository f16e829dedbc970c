// Whom a host action may touch (issue 35, finding 1). A phone chooses its
// udid (ro.serialno) and, over USB, the serial adb names it by; it cannot
// choose where on the USB tree adb finds it. So a port is switched, a charge
// paused or a transport kicked only for a device whose identity no other
// device claims, and a port only for a USB phone adb finds behind that port.
// Pure: the actions and the Android source ask it with the registry's records.

import type { HubPort } from '../config/hub-ports.js';
import type { DeviceSnapshot } from '../devices/record.js';
import { isTcpSerial } from '../util/tcp-serial.js';

/** What the agent knows of one listed device: what it says of itself, and where adb finds it. */
export interface Claim {
  serial: string;
  /** The udid it gave (its ro.serialno), once it answered an inventory. */
  udid?: string;
  /** adb's USB path (`adb devices -l`: usb:1-1.4.3); none over TCP or before the long listing. */
  usb?: string;
  /** How many devices adb's long listing shows under this serial (more than 1: phones sharing one serial). */
  sharedBy?: number;
  /** adb lists it ready: it is about to say who it is, unless it already did. */
  ready?: boolean;
}

/** A record's claim: what it gave as udid (or recovery remembers of it), where adb finds it. */
export function claimOf(r: DeviceSnapshot, udid: string | undefined = r.udid): Claim {
  return { serial: r.serial, udid, usb: r.usb?.usb, sharedBy: r.usb?.sharedBy, ready: r.state === 'device' };
}

/** Why no host action is taken for a device: its identity is in conflict. */
export interface Conflict {
  kind: 'shared_udid' | 'shared_serial';
  /** The udid (shared_udid) or the serial (shared_serial) claimed more than once. */
  id: string;
  /** The adb serials that claim it. */
  serials: readonly string[];
  /** How many devices claim it. */
  devices: number;
}

/**
 * Serial -> its conflict, for every device whose identity another claims.
 * A serial adb lists more than once is one; so are all the records that give
 * one udid, except the usual twin of one phone: one USB record and the same
 * phone over TCP (adb tcpip). There the USB one is the phone the port
 * belongs to, and portRefusal keeps port actions to it.
 */
export function conflictsOf(claims: readonly Claim[]): Map<string, Conflict> {
  const out = new Map<string, Conflict>();
  const byUdid = new Map<string, string[]>();
  for (const c of claims) {
    if ((c.sharedBy ?? 1) > 1) out.set(c.serial, { kind: 'shared_serial', id: c.serial, serials: [c.serial], devices: c.sharedBy! });
    if (c.udid === undefined) continue;
    const same = byUdid.get(c.udid);
    if (same) same.push(c.serial);
    else byUdid.set(c.udid, [c.serial]);
  }
  for (const [udid, serials] of byUdid) {
    if (serials.length < 2) continue;
    const usb = serials.filter((s) => !isTcpSerial(s));
    if (usb.length === 1) continue;
    const sorted = [...serials].sort();
    for (const s of serials) if (!out.has(s)) out.set(s, { kind: 'shared_udid', id: udid, serials: sorted, devices: sorted.length });
  }
  return out;
}

/**
 * Why the port mapped to this device may not be switched for it, or
 * undefined when it may. `checkPath`: the port is a uhubctl location, so a
 * USB phone's path must lie behind it; an operator's own command names its
 * ports its own way, and only the conflict rule holds there.
 */
export function portRefusal(claim: Claim, claims: readonly Claim[], place: HubPort, checkPath: boolean): string | undefined {
  const conflict = conflictsOf(claims).get(claim.serial);
  if (conflict) return conflictText(conflict);
  if (isTcpSerial(claim.serial)) {
    // A phone on Wi-Fi adb charged from the hub: its port cannot be checked, but a USB record of its udid is the phone the port belongs to.
    const usbTwin = claim.udid !== undefined && claims.some((c) => c.udid === claim.udid && !isTcpSerial(c.serial));
    if (usbTwin) return `its udid is also given over USB (${claim.udid}); the port is switched for that one only`;
    // Nothing ties a network phone to the port but its word: while a ready device has not said who it is, that
    // one may be the phone the udid belongs to (an impostor read first would otherwise switch the victim's port).
    const unread = claims.filter((c) => c.serial !== claim.serial && c.ready === true && c.udid === undefined).map((c) => c.serial);
    return unread.length > 0
      ? `it is on network adb and ${unread.length === 1 ? 'a ready device has' : `${unread.length} ready devices have`} not said who ${unread.length === 1 ? 'it is' : 'they are'} yet (${unread.slice(0, 3).join(', ')}${unread.length > 3 ? ', ...' : ''}); one may be the phone ${claim.udid ?? 'it names'} belongs to`
      : undefined;
  }
  if (!checkPath) return undefined;
  if (claim.usb === undefined) return 'adb has not said where it is on the USB tree yet';
  return behindPort(claim.usb, place) ? undefined : `adb finds it at usb:${claim.usb}, not behind hub ${place.hub} port ${place.port}`;
}

/**
 * Whether adb's USB path lies behind a hub port as uhubctl names it: hub
 * 1-1.4 port 3 holds 1-1.4.3 and what hangs below it (1-1.4.3.2); a root hub
 * 1, port 4 holds 1-4. The bus may differ: a USB 3 hub shows as two hubs
 * with the same ports, one on each bus, and uhubctl switches both.
 */
export function behindPort(usb: string, place: HubPort): boolean {
  const chain = (path: string): string => path.slice(path.indexOf('-') + 1);
  const want = place.hub.includes('-') ? `${chain(place.hub)}.${place.port}` : String(place.port);
  if (!/^\d+-\d+(\.\d+)*$/.test(usb)) return false;
  const have = chain(usb);
  return have === want || have.startsWith(`${want}.`);
}

/** The words of a conflict in a device's message and the log. */
export function conflictText(c: Conflict): string {
  return c.kind === 'shared_serial'
    ? `adb lists ${c.devices} devices under the serial ${c.id}`
    : `${c.serials.length} devices (adb serials ${c.serials.join(', ')}) give the udid ${c.id}`;
}

/** The note a conflicted device's message carries. */
export function conflictNote(c: Conflict): string {
  return `identity in conflict: ${conflictText(c)}; no port power, charge pause or transport kick is done for it until only one device claims it`;
}

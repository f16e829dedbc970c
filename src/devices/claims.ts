// Who claims which identity among the devices a source lists now: a phone chooses its udid and, over USB, its adb
// serial, so two devices can claim one. Pure; the actions refuse to touch a device in a conflict (src/actions/trust.ts).
import type { DeviceSnapshot } from './snapshot.js';
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
 * Serial -> its conflict, for every device whose identity another claims. A serial adb lists more than once is one; so
 * are all the records that give one udid, except the usual twin of one phone: one USB record and the same phone over
 * TCP (adb tcpip). There the USB one is the phone the port belongs to, and portRefusal keeps port actions to it.
 */
export function conflictsOf(claims: readonly Claim[]) {
  const out = new Map<string, Conflict>();
  for (const c of claims) if ((c.sharedBy ?? 1) > 1) out.set(c.serial, { kind: 'shared_serial', id: c.serial, serials: [c.serial], devices: c.sharedBy! });
  for (const [udid, same] of Map.groupBy(claims, (c) => c.udid)) {
    const serials = same.map((c) => c.serial);
    if (udid === undefined || serials.length < 2) continue;
    const usb = serials.filter((s) => !isTcpSerial(s));
    if (usb.length === 1) continue;
    const sorted = [...serials].sort();
    for (const s of serials) if (!out.has(s)) out.set(s, { kind: 'shared_udid', id: udid, serials: sorted, devices: sorted.length });
  }
  return out;
}

/** The words of a conflict in a device's message and the log. */
export function conflictText(c: Conflict) {
  return c.kind === 'shared_serial'
    ? `adb lists ${c.devices} devices under the serial ${c.id}`
    : `${c.serials.length} devices (adb serials ${c.serials.join(', ')}) give the udid ${c.id}`;
}

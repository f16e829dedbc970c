// Whom a host action may touch. A phone chooses its udid and, over USB, its adb serial, but not where on the USB tree
// adb finds it. So a port is switched, a charge paused or a transport kicked only for a device whose identity no other
// claims, and a port only for a USB phone adb finds behind it. Pure; who claims what is src/devices/claims.ts.

import type { HubPort } from '../config/hub-ports.js';
import { conflictsOf, conflictText, type Claim, type Conflict } from '../devices/claims.js';
import { counterKey } from '../stats/counter.js';
import { isTcpSerial } from '../util/tcp-serial.js';

/** Host actions refused for a device whose identity does not hold, by action: counted by the runner, served by identity trust. */
export const ACTIONS_REFUSED = counterKey(
  'device_agent_actions_refused_total',
  'Host actions (kick, power_cycle, charge_pause) not taken because the identity of the device is in conflict or its USB path is not behind its hub port; once per device and reason.',
  ['action'],
);

/**
 * Why the port mapped to this device may not be switched for it, or undefined. `checkPath`: a uhubctl location, so a
 * USB phone's path must lie behind it; an operator's command names ports its own way: only the conflict rule holds.
 */
export function portRefusal(claim: Claim, claims: readonly Claim[], place: HubPort, checkPath: boolean) {
  const conflict = conflictsOf(claims).get(claim.serial);
  if (conflict) return conflictText(conflict);
  if (isTcpSerial(claim.serial)) {
    // A phone on Wi-Fi adb charged from the hub: its port cannot be checked, but a USB record of its udid is the phone the port belongs to.
    const usbTwin = claim.udid !== undefined && claims.some((c) => c.udid === claim.udid && !isTcpSerial(c.serial));
    if (usbTwin) return `its udid is also given over USB (${claim.udid}); the port is switched for that one only`;
    // Nothing but its word ties a network phone to the port: while a ready device has not said who it is, it may be the
    // phone the udid belongs to (an impostor read first would switch the victim's port).
    const unread = claims.filter((c) => c.serial !== claim.serial && c.ready && c.udid === undefined).map((c) => c.serial);
    return unread.length > 0
      ? `it is on network adb and ${unread.length === 1 ? 'a ready device has' : `${unread.length} ready devices have`} not said who ${unread.length === 1 ? 'it is' : 'they are'} yet (${unread.slice(0, 3).join(', ')}${unread.length > 3 ? ', ...' : ''}); one may be the phone ${claim.udid ?? 'it names'} belongs to`
      : undefined;
  }
  if (!checkPath) return undefined;
  if (claim.usb === undefined) return 'adb has not said where it is on the USB tree yet';
  return behindPort(claim.usb, place) ? undefined : `adb finds it at usb:${claim.usb}, not behind hub ${place.hub} port ${place.port}`;
}

/**
 * Whether adb's USB path lies behind a hub port as uhubctl names it: hub 1-1.4 port 3 holds 1-1.4.3 and below; root hub
 * 1 port 4 holds 1-4. The bus may differ: a USB 3 hub is two hubs, one per bus, and uhubctl switches both.
 */
export function behindPort(usb: string, place: HubPort) {
  const chain = (path: string) => path.slice(path.indexOf('-') + 1);
  const want = place.hub.includes('-') ? `${chain(place.hub)}.${place.port}` : String(place.port);
  if (!/^\d+-\d+(\.\d+)*$/.test(usb)) return false;
  const have = chain(usb);
  return have === want || have.startsWith(`${want}.`);
}

/** The note a conflicted device's message carries. */
export function conflictNote(c: Conflict) {
  return `identity in conflict: ${conflictText(c)}; no port power, charge pause or transport kick is done for it until only one device claims it`;
}

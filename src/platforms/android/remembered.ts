// A phone reached over TCP that has said who it is, remembered by its address past its records: adb forgets a network
// phone whose transport dropped and lists it again as a new device that has not said who it is (a wedged one never
// will). Until it answers, it is reported with its last inventory and a message naming what happened and whose fault,
// owed in the presence ledger (network-dropped).
//
// It is forgotten, and so reported UNPLUGGED once, when it has not answered for REMEMBER_MS, when adb no longer lists
// an address the agent does not keep connected (someone disconnected it), or when another phone answers there.

import { adbState, STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import { facetKey } from '../../devices/facet.js';
import { composeMessage } from '../../cloud/device-message.js';

/** What the agent last knew of a network phone: who it is, and its last answer there (devices/readings.ts keeps it). */
export interface RememberedPhone {
  udid: string;
  /** Its last inventory (full or cut short). */
  last: DeviceInfo;
  /** Wall ms of that inventory. */
  wallAt: number;
  /** Monotonic ms of that inventory. */
  at: number;
}

/** The udid that last answered at each network address, by record key (android/HOST:PORT), past the records. */
export const REMEMBERED = facetKey<string>('android-remembered-network', 'device');

/** How long a remembered phone stays reported without answering: recovery's hour (its kicks and cycles are counted over it). */
export const REMEMBER_MS = 3_600_000;

/** What is known now of the address, for the message. */
interface AddressNow {
  serial: string;
  /** adb's state of the address now; undefined: adb does not list it. */
  state: string | undefined;
  /** Why its inventory fails on this connection, if it does. */
  failure?: string;
  /** The agent's own last cut of its transport after the last inventory (recovery's kick), if any: wall ms and what did it. */
  cut?: { atWall: number; what: string };
}

/** Whether the remembered phone is to be forgotten now (see the rule above). */
export function forgotten(phone: RememberedPhone, now: number, address: { listed: boolean; keptConnected: boolean }) {
  if (now - phone.at >= REMEMBER_MS) return `it has not answered for ${Math.round(REMEMBER_MS / 60_000)} min`;
  if (!address.listed && !address.keptConnected) return 'adb no longer lists its address and the agent does not connect it (not in networkDevices)';
}

/** The report's entry for a remembered phone: its last inventory, unavailable, with what happened and whose fault it is. */
export function rememberedInfo(phone: RememberedPhone, address: AddressNow): DeviceInfo {
  const { serial, state, failure, cut } = address;
  const culprit =
    cut !== undefined
      ? `${cut.what} at ${new Date(cut.atWall).toISOString()} (adb -s ${serial} reconnect), which drops its network link (adb over TCP to ${serial})`
      : `its network link (adb over TCP to ${serial}) dropped`;
  const now =
    state === undefined
      ? 'adb does not list the address now; the agent keeps connecting it'
      : failure !== undefined
        ? `adb lists the address as ${state} again, but its inventory fails (${failure}), so it has not said who it is since`
        : `adb lists the address as ${state} again; it has not said who it is since`;
  const message =
    `reported with its last inventory, of ${new Date(phone.wallAt).toISOString()}: ${culprit}; ${now}. ` +
    `It stays reported until it answers, or for ${Math.round(REMEMBER_MS / 60_000)} min without an answer`;
  return { ...phone.last, udid: phone.udid, state: adbState(state ?? 'offline'), status: STATUS_UNAVAILABLE, ...composeMessage([message]) };
}

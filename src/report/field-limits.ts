// Every value a phone gives has a size limit: any shell user can set a device name of any length, and one 4 MiB name
// made every PUT of its host 5.4 MB, refused by a cloud behind a 1 MiB body limit. Each field's limit sits well above
// what real phones send (the numbers beside them); a value over it is clipped for that device only, with the fields
// named in its message and one log line. Identity fields are never clipped (two long serials could become one): such a
// device is left out, named in the log. Pure.

import type { DeviceInfo } from '../cloud/types.js';
import { MESSAGE_MAX_CHARS, withinMessage } from '../cloud/device-message.js';

/** Characters (code points) a string field may hold, by its path in DeviceInfo. */
export const STRING_LIMITS = {
  // adb serials are at most 64 bytes in practice (USB iSerial 126 bytes of UTF-16, TCP HOST:PORT at most 261); udids 40 or 25.
  udid: 256,
  serialNumber: 256,
  // Ours: cut at a word past it (withinMessage), never blamed on the phone.
  message: MESSAGE_MAX_CHARS,
  // Android's Bluetooth name holds at most 248 bytes; longer only when set by a shell.
  deviceName: 256,
  // ro.product.* values: 91 bytes before Android 8 (PROP_VALUE_MAX), rarely over 40 since.
  modelName: 128,
  brandName: 128,
  platformName: 32,
  platformVersion: 64,
  cpuArchitecture: 64,
  state: 128,
  status: 32,
  'installedBrowsers.name': 128,
  'networkReachability.host': 253,
  'networkReachability.status': 64,
  'networkReachability.ipAddress': 64,
  'battery.status': 32,
  'battery.health': 32,
  'battery.technology': 32,
  'battery.percentage': 8,
  'telephony.mobileDataState': 32,
  // IMEI 15 digits, MEID 14 hex, ICCID at most 22 digits.
  'telephony.carriersInfo.imei': 32,
  'telephony.carriersInfo.meid': 32,
  'telephony.carriersInfo.iccid': 32,
  'adbTunnelInfo.key': 64,
  'adbTunnelInfo.value': 256,
} as const;

/** Items a list field may hold: phones carry a handful of browsers and at most a few SIM slots. */
export const LIST_LIMITS = {
  installedBrowsers: 32,
  'telephony.carriersInfo': 8,
  adbTunnelInfo: 16,
} as const;

/** The JSON of one bounded device is at most this (about 12,900 characters at the limits, at most 6 bytes each); tested on random devices. */
export const MAX_DEVICE_JSON_BYTES = 96 * 1024;

const IDENTITY = ['udid', 'serialNumber'] as const;

export interface BoundedDevice {
  /** The device with every value within its limit (the same object when nothing was over). */
  info: DeviceInfo;
  /** The paths of the values clipped, for the device's message and one log line. */
  clipped: string[];
}

/** The device within the limits, or why it cannot be reported (an identity over its limit). */
export function boundDevice(info: DeviceInfo) {
  for (const field of IDENTITY) {
    const value = info[field];
    if (typeof value === 'string' && length(value) > STRING_LIMITS[field]) {
      return { refused: `its ${field} is ${length(value)} characters long, over the limit of ${STRING_LIMITS[field]}` };
    }
  }
  // Each path once, in the order first clipped.
  const clipped = new Set<string>();
  // A value over no limit of its own is kept: a path without one finds undefined, or an inherited name's function, and no
  // length is greater than either.
  const text = (path: string, value: unknown) => {
    const limit = STRING_LIMITS[path as keyof typeof STRING_LIMITS];
    if (typeof value !== 'string' || !(length(value) > limit)) return value;
    if (path === 'message') return withinMessage(value);
    clipped.add(path);
    return clip(value, limit);
  };
  const list = <T>(path: string, items: T[]) => {
    const limit = LIST_LIMITS[path as keyof typeof LIST_LIMITS];
    if (!(items.length > limit)) return items;
    clipped.add(path);
    return items.slice(0, limit);
  };
  // Each value by its path in DeviceInfo (a list's items by the list's).
  const walk = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) return list(path, value).map((v) => walk(v, path));
    if (typeof value !== 'object' || value === null) return text(path, value);
    const entries = Object.entries(value);
    if (path !== 'adbTunnelInfo') return Object.fromEntries(entries.map(([k, v]) => [k, walk(v, path ? `${path}.${k}` : k)]));
    // Scalars only: a nested object from a phone has no limit of its own.
    return Object.fromEntries(
      list(path, entries).flatMap(([k, v]) => {
        if (typeof v !== 'object' || v === null) return [[text('adbTunnelInfo.key', k), text('adbTunnelInfo.value', v)]];
        clipped.add(path);
        return [];
      }),
    );
  };
  const out = walk(info, '') as DeviceInfo;
  return { info: !clipped.size && out.message === info.message ? info : out, clipped: [...clipped] };
}

/** A sentence for the device's message: which of its values were clipped. */
export function clippedNote(clipped: readonly string[]) {
  return `the phone gave ${clipped.length === 1 ? 'a value' : 'values'} longer than the agent sends, clipped: ${clipped.join(', ')}`;
}

/**
 * Length in code points (a limit never splits a character): its UTF-16 units less its surrogate pairs, with no object
 * made per character as the string's iterator makes, nor a list of the pairs (`match` made one of 117 MB for a name of 4
 * MiB of emoji).
 */
function length(text: string) {
  let n = text.length;
  for (const pair = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g; pair.test(text);) n--;
  return n;
}

function clip(text: string, limit: number) {
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (++n >= limit) break;
    out += ch;
  }
  return out + '…';
}

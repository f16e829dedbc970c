import type { DeviceInfo } from '../cloud/types.js';
import { cleanStrings } from './clean-strings.js';

// A device record read back from reported-devices.json. Such a record is only
// ever sent again as an UNPLUGGED record, and the file may come from another
// version or an editor: a field the cloud does not know, or one whose type
// changed, would make the cloud refuse that report, and the UNPLUGGED record
// stays owed until a report carrying it is delivered, so every report after
// it would be refused too. What is read back is the device's identity, each
// field checked for its type; the rest is left behind.

const STRINGS = ['serialNumber', 'platformName', 'platformVersion', 'modelName', 'brandName', 'deviceName', 'cpuArchitecture'] as const;
const BOOLEANS = ['isAndroid', 'isIos', 'isEmulator', 'isRooted', 'isHidden', 'addedToCloud'] as const;

/** What is kept of a delivered device in the file: its identity, the fields storedDevice reads back (never its inventory). */
export function storedFields(info: DeviceInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { udid: info.udid, state: info.state, status: info.status };
  for (const key of [...STRINGS, ...BOOLEANS]) if (info[key] !== undefined) out[key] = info[key];
  return out;
}

export function storedDevice(value: unknown): DeviceInfo | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.udid !== 'string' || v.udid === '' || typeof v.state !== 'string') return undefined;
  const out: Record<string, unknown> = { udid: v.udid, serialNumber: v.udid, state: v.state, status: typeof v.status === 'string' ? v.status : 'AVAILABLE' };
  for (const key of STRINGS) if (typeof v[key] === 'string') out[key] = v[key];
  for (const key of BOOLEANS) if (typeof v[key] === 'boolean') out[key] = v[key];
  out.platformName ??= 'ANDROID';
  out.isAndroid ??= out.platformName === 'ANDROID';
  out.isIos ??= out.platformName === 'IOS';
  return cleanStrings(out as unknown as DeviceInfo);
}

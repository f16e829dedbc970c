import type { DeviceInfo } from '../cloud/types.js';
import { cleanStrings } from './clean-strings.js';

// A device record read back from reported-devices.json, only ever sent again as UNPLUGGED: an unknown or retyped field
// from another version or an editor would make the cloud refuse every report after it, so only its identity is read
// back, each field checked for its type.

const STRINGS = ['serialNumber', 'platformName', 'platformVersion', 'modelName', 'brandName', 'deviceName', 'cpuArchitecture'] as const;
const BOOLEANS = ['isAndroid', 'isIos', 'isEmulator', 'isRooted', 'isHidden', 'addedToCloud'] as const;

/** What is kept of a delivered device in the file: its identity, the fields storedDevice reads back (never its inventory). */
export function storedFields(info: DeviceInfo) {
  const out: Record<string, unknown> = { udid: info.udid, state: info.state, status: info.status };
  for (const key of [...STRINGS, ...BOOLEANS]) if (info[key] !== undefined) out[key] = info[key];
  return out;
}

export function storedDevice(value: unknown) {
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

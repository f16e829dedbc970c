// Assembles one DeviceInfo from the sections of one inventory script run
// (script.ts). Pure: no I/O, no clock. Each field comes from its own section;
// a missing or unreadable section leaves only its own fields undefined.
import type { DeviceInfo, Support } from '../cloud/types.js';
import { identityFromProps, type Identity } from './identity.js';
import { parseGetprop } from './parsers/getprop.js';
import { parseIdUid, parseSuListing } from './parsers/root.js';
import { parseSettingValue } from './parsers/settings.js';
import { SECTION } from './script.js';

/** status of a device that answers and is ready for tests. */
export const STATUS_AVAILABLE = 'AVAILABLE';
/** status of a device that adb sees but that is not ready (see its message). */
export const STATUS_UNAVAILABLE = 'UNAVAILABLE';

export interface InventoryConfig {
  isHidden: boolean;
  addedToCloud: boolean;
  support: Support;
  reachabilityHost?: string;
}

/** What cannot change while a device stays plugged; cached per connection. */
export interface StaticFacts {
  imeis?: string[];
}

export interface AssembleInput {
  adbSerial: string;
  adbState: string;
  sections: Map<string, string>;
  cachedStatic?: StaticFacts;
  config: InventoryConfig;
  adbTunnelInfo?: Record<string, unknown>;
}

export function assembleDeviceInfo(input: AssembleInput): DeviceInfo {
  const { sections, config } = input;
  const props = parseGetprop(sections.get(SECTION.props) ?? '');
  const identity = identityFromProps(props, input.adbSerial);
  const info: DeviceInfo = {
    udid: identity.udid,
    serialNumber: identity.serialNumber,
    state: input.adbState,
    status: STATUS_AVAILABLE,
    platformName: 'ANDROID',
    platformVersion: identity.platformVersion,
    modelName: identity.modelName,
    brandName: identity.brandName,
    deviceName: deviceName(sections, identity),
    cpuArchitecture: identity.cpuArchitecture,
    isAndroid: true,
    isIos: false,
    isEmulator: identity.isEmulator,
    isRooted: isRooted(sections, identity),
    addedToCloud: config.addedToCloud,
    isHidden: config.isHidden,
    support: { ...config.support },
  };
  if (input.adbTunnelInfo !== undefined) info.adbTunnelInfo = { ...input.adbTunnelInfo };
  return dropUndefined(info);
}

function setting(sections: Map<string, string>, name: string): string | undefined {
  const text = sections.get(name);
  return text === undefined ? undefined : parseSettingValue(text);
}

/** The user-set name first, then the vendor's marketing name, then the model. */
export function deviceName(sections: Map<string, string>, identity: Identity): string | undefined {
  return (
    setting(sections, SECTION.deviceName) ??
    setting(sections, SECTION.bluetoothName) ??
    identity.marketingName ??
    identity.modelName
  );
}

/**
 * Rooted: an su binary is present, or adbd runs as root (uid 0 shell).
 * Without the `id` section, ro.secure=0 or service.adb.root=1 stand in.
 */
export function isRooted(sections: Map<string, string>, identity: Identity): boolean | undefined {
  const suText = sections.get(SECTION.su);
  const su = suText === undefined ? undefined : parseSuListing(suText);
  const idText = sections.get(SECTION.id);
  const uid = idText === undefined ? undefined : parseIdUid(idText);
  if (su === true || uid === 0) return true;
  if (uid === undefined && (identity.rootHints.insecure === true || identity.rootHints.adbRoot === true)) {
    return true;
  }
  if (su === false && uid !== undefined) return false;
  return undefined;
}

// JSON drops undefined anyway; dropping it here keeps test expectations and
// logs free of keys that carry nothing.
function dropUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

// Operator guidance per adb state. Keys are the states adb prints in
// `adb devices`; "no permissions" carries a hint text after it.
const NOT_READY_MESSAGES: [RegExp, string][] = [
  [/^unauthorized$/, 'USB debugging is not authorized: unlock the device and accept the "Allow USB debugging" prompt (tick "Always allow from this computer"). If no prompt shows, revoke USB debugging authorizations in Developer options and reconnect the cable.'],
  [/^authorizing$/, 'adb is still authorizing the device: wait a few seconds; if it stays, unlock the device and accept the USB debugging prompt.'],
  [/^connecting$/, 'adb is still connecting to the device: wait a few seconds; if it stays, reconnect the cable or restart adb on the host.'],
  [/^offline$/, 'The device does not answer adb: reconnect the USB cable (or run adb reconnect); if it stays offline, toggle USB debugging or reboot the device.'],
  [/^recovery$/, 'The device is in recovery mode: reboot it into Android (select "Reboot system now").'],
  [/^rescue$/, 'The device is in rescue mode: reboot it into Android.'],
  [/^sideload$/, 'The device is in sideload mode: finish or cancel the sideload, then reboot it into Android.'],
  [/^bootloader$/, 'The device is in the bootloader (fastboot): reboot it into Android.'],
  [/^no permissions/, 'The host user may not open the USB device: add a udev rule for the device (plugdev group) or run the agent as a user with access, then reconnect the cable.'],
  [/^host$/, 'The serial names the host itself, not a device: check the device connection.'],
  [/^no device$/, 'adb has no device behind this serial: reconnect the device, or run adb connect again for a network device.'],
];

export function notReadyMessage(adbState: string): string {
  const state = adbState.trim();
  for (const [pattern, message] of NOT_READY_MESSAGES) {
    if (pattern.test(state)) return message;
  }
  return `adb reports the state "${state || 'unknown'}": reconnect the device; if it stays, restart adb on the host.`;
}

export function notReadyDeviceInfo(adbSerial: string, adbState: string): DeviceInfo {
  return {
    udid: adbSerial,
    serialNumber: adbSerial,
    state: adbState,
    status: STATUS_UNAVAILABLE,
    message: notReadyMessage(adbState),
    platformName: 'ANDROID',
    isAndroid: true,
    isIos: false,
  };
}

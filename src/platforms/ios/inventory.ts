// One DeviceInfo from what lockdown answered, pure: no I/O, no clock. Each field comes from its own value; a missing or
// odd value leaves only that field out.
import { STATUS_AVAILABLE, STATUS_UNAVAILABLE, type DeviceInfo, type IosState } from '../../cloud/types.js';

import type { Dict } from './framing.js';
import type { RelayWear } from './diagnostics.js';
import { modelName } from './models.js';
import { dropUndefined } from '../../util/drop-undefined.js';
import { composeMessage, withoutMessage } from '../../cloud/device-message.js';

export const IOS_PLATFORM = 'IOS';

export interface LockdownValues {
  /** GetValue with no domain, inside a session. */
  root: Dict;
  battery?: Dict;
  diskUsage?: Dict;
  /** com.apple.security.mac.amfi as read for readiness (DeveloperModeStatus), with the root domain; absent when lockdown refused it or the root was known. */
  amfi?: Dict;
  /** Whether the developer disk image is mounted, when this reading asked and the phone said (image-mounter.ts). */
  developerImage?: 'mounted' | 'not-mounted';
  /** The battery's wear through the diagnostics relay, read with the root domain (the slow tier); absent when the root was known. */
  wear?: RelayWear;
}

/** A lockdown string, trimmed; undefined when blank or not a string. */
export const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : typeof v === 'bigint' ? Number(v) : undefined);

export function iosDeviceInfo(udid: string, values: LockdownValues) {
  const { root } = values;
  const productType = str(root.ProductType);
  const info: DeviceInfo = {
    udid: str(root.UniqueDeviceID) ?? udid,
    serialNumber: str(root.SerialNumber) ?? udid,
    // A phone lockdown answers for (adb's "device" has no iOS twin).
    state: 'paired' satisfies IosState,
    status: STATUS_AVAILABLE,
    platformName: IOS_PLATFORM,
    platformVersion: str(root.ProductVersion),
    modelName: productType === undefined ? undefined : modelName(productType),
    brandName: 'Apple',
    deviceName: str(root.DeviceName),
    cpuArchitecture: str(root.CPUArchitecture),
    isAndroid: false,
    isIos: true,
    isEmulator: false,
    battery: values.battery ? iosBattery(values.battery) : undefined,
    storage: values.diskUsage ? iosStorage(values.diskUsage) : undefined,
  };
  return dropUndefined(info);
}

/** com.apple.mobile.battery: percentage and a status in the words Android reports use. */
export function iosBattery(d: Dict) {
  const level = int(d.BatteryCurrentCapacity);
  const percentage = level !== undefined && level >= 0 && level <= 100 ? String(level) : undefined;
  let status: string | undefined;
  if (d.FullyCharged === true) status = 'FULL';
  else if (d.BatteryIsCharging === true) status = 'CHARGING';
  else if (d.BatteryIsCharging === false) status = d.ExternalConnected === true ? 'NOT_CHARGING' : 'DISCHARGING';
  return percentage === undefined && status === undefined ? undefined : dropUndefined({ status, percentage });
}

/** com.apple.disk_usage: the user data partition (AmountDataAvailable; TotalDataAvailable counts purgeable space too). */
export function iosStorage(d: Dict) {
  const total = int(d.TotalDataCapacity) ?? int(d.TotalDiskCapacity);
  const free = int(d.AmountDataAvailable) ?? int(d.TotalDataAvailable);
  if (total === undefined || total <= 0 || free === undefined || free < 0) return undefined;
  return { total, used: Math.max(0, total - Math.min(free, total)) };
}

export const NOT_PAIRED_MESSAGE =
  'iPhone not paired with this host: unlock it, tap "Trust" on "Trust This Computer?", then run `idevicepair pair` on the host (as the user usbmuxd serves).';

/** A phone usbmuxd lists but that lockdown will not open a session for. */
export function notPairedDeviceInfo(udid: string, detail?: string, known?: DeviceInfo) {
  const message = detail ? `${NOT_PAIRED_MESSAGE} (${detail})` : NOT_PAIRED_MESSAGE;
  return unavailable(udid, 'unpaired', message, known && stripLive(known));
}

/** Lockdown did not answer: the last good inventory with a message, as for a wedged adbd; without one, the bare identity usbmuxd gave. */
export function notAnsweringDeviceInfo(udid: string, detail: string, lastGood?: DeviceInfo) {
  const message = `lockdown on this iPhone did not answer (${detail}): unlock it; if it stays, unplug and replug it or restart usbmuxd.`;
  if (lastGood) return { ...lastGood, ...composeMessage([message]) };
  return unavailable(udid, 'not-answering', message);
}

/** An iPhone the agent cannot read now: `known`, what is still said of it (its serial number, else the udid). */
function unavailable(udid: string, state: IosState, message: string, known?: Partial<DeviceInfo>): DeviceInfo {
  return {
    ...known,
    udid,
    serialNumber: known?.serialNumber ?? udid,
    state,
    status: STATUS_UNAVAILABLE,
    ...composeMessage([message]),
    platformName: IOS_PLATFORM,
    isAndroid: false,
    isIos: true,
    isEmulator: false,
  };
}

function stripLive(info: DeviceInfo) {
  const { battery: _b, storage: _s, ...rest } = info;
  return withoutMessage(rest);
}

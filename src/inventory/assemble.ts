// Assembles one DeviceInfo from the sections of one inventory script run
// (script.ts). Pure: no I/O, no clock. Each field comes from its own section;
// a missing or unreadable section leaves only its own fields undefined.
import type { Battery, CarrierInfo, DeviceInfo, NetworkReachability, Resolution, Support, Telephony } from '../cloud/types.js';
import { identityFromProps, type Identity } from './identity.js';
import { parseBattery } from './parsers/battery.js';
import { parseDf } from './parsers/df.js';
import { parseGetprop, type Props } from './parsers/getprop.js';
import { parseMeminfo } from './parsers/meminfo.js';
import { parseIpAddresses, parsePing, parseProxySetting, preferredAddress } from './parsers/network.js';
import { parseOrientation } from './parsers/orientation.js';
import { installedBrowsers, parsePackages } from './parsers/packages.js';
import { parseIdUid, parseSuListing } from './parsers/root.js';
import { parseSettingValue } from './parsers/settings.js';
import {
  imeisFromProps,
  isImei,
  meidFromProps,
  mobileDataState,
  parseParcelString,
  parseTelephonyRegistry,
  simSlots,
} from './parsers/telephony.js';
import { parseUptimeSeconds } from './parsers/uptime.js';
import { parseWmDensity, parseWmSize } from './parsers/wm.js';
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
  /** IMEI of the default slot, when the shell may read it (Android 9 and older). */
  imei?: string;
}

/** The static facts a script run with includeStatic printed. */
export function staticFactsFromSections(sections: Map<string, string>): StaticFacts {
  const facts: StaticFacts = {};
  const text = sections.get(SECTION.imei);
  const imei = text === undefined ? undefined : parseParcelString(text);
  if (isImei(imei)) facts.imei = imei;
  return facts;
}

export interface AssembleInput {
  adbSerial: string;
  adbState: string;
  sections: Map<string, string>;
  cachedStatic?: StaticFacts;
  config: InventoryConfig;
  adbTunnelInfo?: Record<string, unknown>;
  /** Host clock (epoch ms) when the script output had arrived; dates the boot. */
  observedAtMs?: number;
  /** Properties to use instead of parsing the props section. */
  props?: Props;
}

/**
 * One DeviceInfo from one script run. Static facts come from the sections
 * when the run included them, else from `cachedStatic`.
 */
export function assembleDeviceInfo(input: AssembleInput): DeviceInfo {
  const { sections, config } = input;
  let props = input.props ?? parseGetprop(sections.get(SECTION.props) ?? '');
  // SIM presence is re-read on its own (slow tier) while the whole property
  // list is read once per connection: the newer reading wins.
  const simState = sections.get(SECTION.simState);
  // (Copied only when it differs: the prober's spy must not see every key read.)
  if (simState !== undefined && !/[\r\n]/.test(simState.trim()) && (props['gsm.sim.state'] ?? '') !== simState.trim()) {
    props = { ...props, 'gsm.sim.state': simState.trim() };
  }
  const identity = identityFromProps(props, input.adbSerial);
  const statics: StaticFacts = { ...input.cachedStatic, ...staticFactsFromSections(sections) };
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
    isRooted: isRooted(sections),
    addedToCloud: config.addedToCloud,
    isHidden: config.isHidden,
    support: { ...config.support },
    installedBrowsers: browsers(sections),
    orientation: optional(sections, SECTION.orientation, parseOrientation),
    resolution: resolution(sections),
    networkReachability: reachability(sections, config.reachabilityHost),
    ...times(sections, input.observedAtMs),
    storage: optional(sections, SECTION.df, (text) => parseDf(text)),
    memory: memory(sections),
    battery: battery(sections),
    telephony: telephony(sections, props, statics),
  };
  if (input.adbTunnelInfo !== undefined) info.adbTunnelInfo = { ...input.adbTunnelInfo };
  return dropUndefined(info);
}

function optional<T>(sections: Map<string, string>, name: string, parse: (text: string) => T | undefined): T | undefined {
  const text = sections.get(name);
  return text === undefined ? undefined : parse(text);
}

function browsers(sections: Map<string, string>): { name: string }[] | undefined {
  const text = sections.get(SECTION.packages);
  if (text === undefined) return undefined;
  const packages = parsePackages(text);
  // An empty list from a failed `pm` is not "no browsers".
  return packages.size === 0 ? undefined : installedBrowsers(packages);
}

/**
 * width/height: the physical panel; logical: the `wm size` override when one
 * is set; projection: the density in dpi that apps render with (override
 * when set, else physical).
 */
function resolution(sections: Map<string, string>): Resolution | undefined {
  const size = optional(sections, SECTION.wmSize, parseWmSize);
  const density = optional(sections, SECTION.wmDensity, parseWmDensity);
  if (!size?.physical) return undefined;
  const result: Resolution = { width: size.physical.width, height: size.physical.height };
  const dpi = density?.override ?? density?.physical;
  if (dpi !== undefined) result.projection = dpi;
  if (size.override) result.logical = { ...size.override };
  return result;
}

function reachability(sections: Map<string, string>, host: string | undefined): NetworkReachability | undefined {
  const result: NetworkReachability = {};
  const ip = optional(sections, SECTION.ip, (text) => preferredAddress(parseIpAddresses(text)));
  if (ip !== undefined) result.ipAddress = ip;
  const proxy = optional(sections, SECTION.proxy, parseProxySetting);
  if (proxy !== undefined) result.proxy = proxy;
  const ping = optional(sections, SECTION.ping, parsePing);
  if (host !== undefined) {
    result.host = host;
    if (ping) {
      result.code = ping.code;
      result.status = ping.status;
    }
  }
  return Object.keys(result).length === 0 ? undefined : result;
}

/**
 * uptime in whole seconds; bootTime in epoch seconds, by the host's clock:
 * the moment the output arrived minus the uptime the script read last. Not
 * the device clock, which a lab phone without SIM or network time can have
 * wrong; the host keeps time by NTP.
 */
function times(sections: Map<string, string>, observedAtMs: number | undefined): { uptime?: number; bootTime?: number } {
  const exact = optional(sections, SECTION.uptime, parseUptimeSeconds);
  if (exact === undefined) return {};
  return {
    uptime: Math.floor(exact),
    bootTime: observedAtMs === undefined ? undefined : Math.round(observedAtMs / 1000 - exact),
  };
}

function memory(sections: Map<string, string>): { total: number; used: number } | undefined {
  const mem = optional(sections, SECTION.meminfo, parseMeminfo);
  return mem ? { total: mem.total, used: mem.used } : undefined;
}

function battery(sections: Map<string, string>): Battery | undefined {
  const reading = optional(sections, SECTION.battery, parseBattery);
  if (!reading) return undefined;
  const { status, temperature, voltage, health, technology, percentage } = reading;
  const result = dropUndefined({ status, temperature, voltage, health, technology, percentage });
  return Object.keys(result).length === 0 ? undefined : result;
}

/**
 * One carrier entry per SIM slot (gsm.sim.state lists one state per slot).
 * IMEI of slot 0 from `service call iphonesubinfo 1` where the shell may call
 * it (Android 9 and older), else from the vendor props that publish one per
 * slot (Xiaomi, Meizu); MEID, for the CDMA radio, on slot 0. What the shell
 * cannot read stays an empty string, the honest answer rather than an error.
 */
function telephony(sections: Map<string, string>, props: Props, statics: StaticFacts): Telephony | undefined {
  const registry = optional(sections, SECTION.telephony, parseTelephonyRegistry);
  const slots = simSlots(props['gsm.sim.state']);
  const imeis = imeisFromProps(props);
  if (statics.imei !== undefined) imeis[0] = statics.imei;
  const count = Math.max(slots.length, imeis.length);
  // A device built without a radio (Wi-Fi-only tablets, TV boxes) has no
  // carrier: that is an empty list, a known answer, not a missing one.
  if (count === 0 && hasNoRadio(props)) return { carriersInfo: [] };
  if (!registry && count === 0) return undefined;
  const meid = meidFromProps(props) ?? '';
  const carriersInfo: CarrierInfo[] = [];
  for (let slot = 0; slot < count; slot++) {
    carriersInfo.push({ slot, imei: imeis[slot] ?? '', meid: slot === 0 ? meid : '', iccid: '' });
  }
  const result: Telephony = { carriersInfo };
  const state = registry ? mobileDataState(registry) : undefined;
  if (state !== undefined) result.mobileDataState = state;
  return result;
}

/** ro.radio.noril (no radio interface layer) or ro.carrier=wifi-only, as Wi-Fi-only builds set them. */
export function hasNoRadio(props: Props): boolean {
  const noril = (props['ro.radio.noril'] ?? '').trim().toLowerCase();
  return ['yes', 'true', '1'].includes(noril) || props['ro.carrier'] === 'wifi-only';
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
 * ro.secure=0 and service.adb.root=1 are not evidence on their own: some
 * vendor builds (a Konka Android 5.1 TV, for one) set ro.secure=0 and still
 * give adb a uid 2000 shell, even after `adb root` reports success.
 */
export function isRooted(sections: Map<string, string>): boolean | undefined {
  const suText = sections.get(SECTION.su);
  const su = suText === undefined ? undefined : parseSuListing(suText);
  const idText = sections.get(SECTION.id);
  const uid = idText === undefined ? undefined : parseIdUid(idText);
  if (su === true || uid === 0) return true;
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

/**
 * A device adb lists but that cannot be inventoried. Its own serial is not
 * readable in this state, so the udid is the one learnt on an earlier
 * connection when the caller knows it, else the adb serial.
 */
export function notReadyDeviceInfo(adbSerial: string, adbState: string, knownUdid?: string): DeviceInfo {
  return {
    udid: knownUdid ?? adbSerial,
    serialNumber: knownUdid ?? adbSerial,
    state: adbState,
    status: STATUS_UNAVAILABLE,
    message: notReadyMessage(adbState),
    platformName: 'ANDROID',
    isAndroid: true,
    isIos: false,
  };
}

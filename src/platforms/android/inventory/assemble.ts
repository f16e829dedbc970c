// Assembles one DeviceInfo from the sections of one inventory script run. Pure. Each probe parses its own section and
// fills its own fields; a missing or unreadable section leaves only that probe's fields undefined.
import { ANDROID_NAME } from '../name.js';
import { adbState, STATUS_AVAILABLE, STATUS_UNAVAILABLE, type DeviceInfo } from '../../../cloud/types.js';
import { identityFromProps } from './identity.js';
import type { Props } from './parsers/getprop.js';
import { props as propsProbe } from './probes/device.js';
import { DECLARED_PROPS, PROBES } from './probes/registry.js';
import { simState } from './probes/telephony.js';
import type { InventoryConfig, Probe } from './probes/types.js';
import { dropUndefined } from '../../../util/drop-undefined.js';
import { isTcpSerial } from '../../../util/tcp-serial.js';
import { composeMessage } from '../../../cloud/device-message.js';

interface AssembleInput {
  adbSerial: string;
  adbState: string;
  sections: Map<string, string>;
  config: InventoryConfig;
  adbTunnelInfo?: Record<string, unknown>;
  /** Host clock (epoch ms) when the script output had arrived; dates the boot. */
  observedAtMs?: number;
  /** Properties to use instead of parsing the props section (the prober's, already cut to DECLARED_PROPS). */
  props?: Props;
}

/** The properties of `all` that `names` lists, in a fresh object: what an assembly, and each probe in it, may read. */
function pickProps(all: Props, names: readonly string[] = DECLARED_PROPS) {
  const picked = Object.create(null) as Record<string, string>;
  for (const name of names) {
    const value = all[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

const DECLARED = new Set(DECLARED_PROPS);

/** What the prober keeps of a property dump: the properties the probes declare, the others not even cut out of it. */
export function declaredProps(dump: string) {
  return propsProbe.parse(dump, DECLARED);
}

/** One DeviceInfo from the sections of one script run (and cached ones). */
export function assembleDeviceInfo(input: AssembleInput) {
  const { sections, config } = input;
  const readings = new Map<string, unknown>();
  const read = <T>(probe: Probe<T>) => {
    if (!readings.has(probe.section)) {
      const text = sections.get(probe.section);
      readings.set(probe.section, text === undefined ? undefined : probe.parse(text));
    }
    return readings.get(probe.section) as T | undefined;
  };
  // Only the declared properties, read now or kept from the connection's first read: every assembly sees the same ones.
  const parsed = input.props ?? read(propsProbe);
  let props = pickProps(parsed ?? {});
  readings.set(propsProbe.section, props);
  // SIM presence is re-read on its own (slow tier) while the property list is read once per connection: the newer wins.
  const sim = read(simState);
  if (sim !== undefined && (props['gsm.sim.state'] ?? '') !== sim) props = { ...props, 'gsm.sim.state': sim };
  const identity = identityFromProps(pickProps(props, propsProbe.props), input.adbSerial);
  // Every key in the order the cloud has always received them; what no probe fills is dropped at the end.
  const info: DeviceInfo = {
    udid: identity.udid,
    serialNumber: identity.serialNumber,
    state: adbState(input.adbState),
    status: STATUS_AVAILABLE,
    platformName: ANDROID_NAME.platformName,
    platformVersion: undefined,
    modelName: undefined,
    brandName: undefined,
    deviceName: undefined,
    cpuArchitecture: undefined,
    isAndroid: true,
    isIos: false,
    isEmulator: undefined,
    isRooted: undefined,
    addedToCloud: config.addedToCloud,
    support: { ...config.support },
    installedBrowsers: undefined,
    orientation: undefined,
    resolution: undefined,
    networkReachability: undefined,
    uptime: undefined,
    bootTime: undefined,
    storage: undefined,
    memory: undefined,
    battery: undefined,
    telephony: undefined,
  };
  for (const probe of PROBES) {
    if (!probe.fill) continue;
    // Each probe sees the properties it declares, and no other.
    const ctx = { read, props: pickProps(props, probe.props ?? []), identity, config, observedAtMs: input.observedAtMs };
    probe.fill(info, read(probe), ctx);
  }
  if (info.networkReachability && Object.keys(info.networkReachability).length === 0) delete info.networkReachability;
  if (input.adbTunnelInfo !== undefined) info.adbTunnelInfo = { ...input.adbTunnelInfo };
  return dropUndefined(info);
}

// Operator guidance per adb state, keyed by the states `adb devices` prints ("no permissions" carries a hint after it).
const NOT_READY_MESSAGES: [RegExp, string][] = [
  [
    /^unauthorized$/,
    'USB debugging is not authorized: unlock the device and accept the "Allow USB debugging" prompt (tick "Always allow from this computer"). If no prompt shows, revoke USB debugging authorizations in Developer options and reconnect the cable.',
  ],
  [/^authorizing$/, 'adb is still authorizing the device: wait a few seconds; if it stays, unlock the device and accept the USB debugging prompt.'],
  [/^connecting$/, 'adb is still connecting to the device: wait a few seconds; if it stays, reconnect the cable or restart adb on the host.'],
  [
    /^offline$/,
    'The device does not answer adb: reconnect the USB cable (or run adb reconnect); if it stays offline, toggle USB debugging or reboot the device.',
  ],
  [/^recovery$/, 'The device is in recovery mode: reboot it into Android (select "Reboot system now").'],
  [/^rescue$/, 'The device is in rescue mode: reboot it into Android.'],
  [/^sideload$/, 'The device is in sideload mode: finish or cancel the sideload, then reboot it into Android.'],
  [/^bootloader$/, 'The device is in the bootloader (fastboot): reboot it into Android.'],
  [
    /^no permissions/,
    'The host user may not open the USB device: add a udev rule for the device (plugdev group) or run the agent as a user with access, then reconnect the cable.',
  ],
  [/^host$/, 'The serial names the host itself, not a device: check the device connection.'],
  [/^no device$/, 'adb has no device behind this serial: reconnect the device, or run adb connect again for a network device.'],
];

// A phone over TCP (HOST:PORT serial) hangs on the network, not a cable: the USB advice would send someone to no cable.
const NETWORK_MESSAGES: [RegExp, string][] = [
  [
    /^connecting$/,
    'adb is still connecting to the device over the network: wait a few seconds; if it stays, check that the device is on and reachable at its address.',
  ],
  [
    /^offline$/,
    'The device does not answer adb over the network: check that it is on, on the network and reachable at its address, then adb connect it again ' +
      '(the agent does so by itself for networkDevices); if it stays offline, turn wireless debugging off and on or reboot the device.',
  ],
];

export function notReadyMessage(rawState: string, adbSerial?: string) {
  const state = rawState.trim();
  const messages = adbSerial !== undefined && isTcpSerial(adbSerial) ? [...NETWORK_MESSAGES, ...NOT_READY_MESSAGES] : NOT_READY_MESSAGES;
  return (
    messages.find(([pattern]) => pattern.test(state))?.[1] ??
    `adb reports the state "${state || 'unknown'}": reconnect the device; if it stays, restart adb on the host.`
  );
}

/** A device adb lists that cannot be inventoried, under the udid of an earlier connection when known, else its serial. */
export function notReadyDeviceInfo(adbSerial: string, rawState: string, knownUdid?: string): DeviceInfo {
  return {
    udid: knownUdid ?? adbSerial,
    serialNumber: knownUdid ?? adbSerial,
    state: adbState(rawState),
    status: STATUS_UNAVAILABLE,
    ...composeMessage([notReadyMessage(rawState, adbSerial)]),
    platformName: ANDROID_NAME.platformName,
    isAndroid: true,
    isIos: false,
  };
}

// Wire types of the cloud's v1 contract (docs/reference/cloud-api-v1.md): the PUT /devices body and its answer. Field
// names follow the spec exactly.

export interface MachineNetwork {
  address: string;
  netmask: string;
  family: string;
  mac: string;
  cidr: string;
  internal: boolean;
}

export interface Machine {
  hostname: string;
  arch: string;
  freemem: number;
  totalmem: number;
  platform: string;
  type: string;
  uptime: number;
  version: string;
  buildNumber: string;
  network: MachineNetwork;
}

export interface Battery {
  status?: string;
  temperature?: number;
  voltage?: number;
  health?: string;
  technology?: string;
  percentage?: string;
}

/** What the agent reads of a battery beyond the contract, for its own rules and metrics; taken off before any report. */
export interface BatteryDetail {
  /** A charger, cable or dock powers the device. */
  externalPower?: boolean;
  /** The most the charger offers, in millivolts (5000 on a plain USB port). */
  chargerMillivolts?: number;
  /** Full charge cycles over the battery's life. */
  cycleCount?: number;
  /** State of health: what the battery holds, in % of its design capacity. */
  healthPercent?: number;
  /** Host wall clock (ms) when the device printed these figures. */
  observedAtMs?: number;
}

export interface CarrierInfo {
  imei: string;
  meid: string;
  slot: number;
  iccid: string;
}

export interface Telephony {
  mobileDataState?: string;
  carriersInfo?: CarrierInfo[];
}

interface Resolution {
  width?: number;
  height?: number;
  projection?: number;
  logical?: { width: number; height: number };
}

export interface NetworkReachability {
  code?: number;
  host?: string;
  status?: string;
  ipAddress?: string;
  proxy?: boolean;
}

export interface Capacity {
  total: number;
  used: number;
}

export interface Support {
  appiumDisabled: boolean;
  networkTrafficCapturingDisabled: boolean;
  unlockPasscodeDisabled: boolean;
  setTimeZoneDisabled: boolean;
  networkPayloadCaptureDisabled: boolean;
}

const NO_FLAGS: Support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};

/** A device's flags with Appium off; one that gives none of its own (lockdown's inventory) gets that one alone, the report ORs the host's in. */
export function appiumOff(support: Support | undefined) {
  return { ...(support ?? NO_FLAGS), appiumDisabled: true };
}

/** What the cloud may show of a device: ready, present but not ready (the message says why), or gone (sent once). */
type DeviceStatus = 'AVAILABLE' | 'UNAVAILABLE' | 'UNPLUGGED';

export const STATUS_AVAILABLE = 'AVAILABLE' satisfies DeviceStatus;
export const STATUS_UNAVAILABLE = 'UNAVAILABLE' satisfies DeviceStatus;
export const STATUS_UNPLUGGED = 'UNPLUGGED' satisfies DeviceStatus;

/** The states `adb devices` prints; "no permissions" carries a hint after it; a newer state arrives as 'unknown'. */
const ADB_STATES = [
  'device',
  'offline',
  'unauthorized',
  'authorizing',
  'connecting',
  'recovery',
  'rescue',
  'sideload',
  'bootloader',
  'host',
  'no device',
  'unknown',
] as const;
type AdbState = (typeof ADB_STATES)[number] | `no permissions${string}`;

/** An iPhone usbmuxd lists: lockdown answered a session, refused one (not paired), or did not answer. */
export type IosState = 'paired' | 'unpaired' | 'not-answering';

/** DeviceInfo.state: the transport's own word for the device, or 'unplugged' for a gone one. */
export type DeviceState = AdbState | IosState | 'unplugged';

/** adb's word for a device, as the report types it. */
export function adbState(raw: string) {
  const state = raw.trim();
  return (ADB_STATES as readonly string[]).includes(state) || state.startsWith('no permissions') ? (state as AdbState) : 'unknown';
}

export interface DeviceInfo {
  udid: string;
  serialNumber: string;
  state: DeviceState;
  status: DeviceStatus;
  message?: string;
  platformName: string;
  platformVersion?: string;
  modelName?: string;
  brandName?: string;
  deviceName?: string;
  cpuArchitecture?: string;
  isAndroid: boolean;
  isIos: boolean;
  isEmulator?: boolean;
  isRooted?: boolean;
  addedToCloud?: boolean;
  isHidden?: boolean;
  adbTunnelInfo?: Record<string, unknown>;
  installedBrowsers?: { name: string }[];
  support?: Support;
  orientation?: number;
  resolution?: Resolution;
  networkReachability?: NetworkReachability;
  uptime?: number;
  bootTime?: number;
  storage?: Capacity;
  memory?: Capacity;
  battery?: Battery;
  telephony?: Telephony;
  /** The agent's own battery readings: not part of the contract, never sent (see BatteryDetail). */
  batteryDetail?: BatteryDetail;
}

export interface ReportBody {
  nodeId: string;
  machine: Machine;
  devices: DeviceInfo[];
}

export interface FailedDevice {
  udid: string;
  message: string;
}

export interface ReportAnswer {
  failedDevices: FailedDevice[];
}

/** GET /devices/{deviceId}/status */
export interface BookingStatus {
  isBooked: boolean;
  isOnline: boolean;
}

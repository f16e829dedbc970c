// The wear capability: what a platform offers the wear feature
// (src/features/wear/) so that the feature judges and forecasts readings and
// names no platform. The platform reads what its phones tell of their wear
// (Android: the slow-tier wear sections of the inventory's one shell
// session; iPhones: the diagnostics relay) and hands over figures; a figure
// the phone did not tell is absent, never a default, and each source that
// could not be read says why, for doctor.
import type { DeviceRegistry } from '../devices/registry.js';

/** Where a battery's figures came from: the feature says it, never selects by it. */
type BatterySource = 'sysfs' | 'tradeinmode' | 'samsung' | 'ioregistry' | 'gasgauge';

export interface BatteryWear {
  /** Full charge cycles counted by the battery's gauge. */
  cycleCount?: number;
  /** What the battery holds when full now, in % of its design capacity (whole %). */
  healthPercent?: number;
  /** The capacities behind healthPercent, mAh, where the phone gives them. */
  fullMah?: number;
  designMah?: number;
  /** When the cell was made (epoch ms), where the phone tells it. */
  manufacturedAtMs?: number;
  source: BatterySource;
}

export interface StorageWear {
  /** Share of the flash's rated life used, % (the upper end of the band the device reports). */
  lifeUsedPercent?: number;
  /** eMMC pre-EOL: reserved blocks consumed (warning: 80 %, urgent: 90 %). */
  preEol?: 'normal' | 'warning' | 'urgent';
  source: 'emmc' | 'ufs' | 'tradeinmode';
}

export interface AppIds {
  /** The largest app id of an installed third-party package (uid % 100000). */
  maxAppId: number;
  /** Third-party packages with an app id. */
  packages: number;
}

/** A gauge's count of full charge cycles, when it is one (0 to 100,000); undefined for any other figure. */
export function cycleCountOf(n: number | undefined) {
  return n !== undefined && n >= 0 && n <= 100_000 ? n : undefined;
}

/**
 * Whether full and design capacities in mAh are a phone's: a design of 500 to 20,000 mAh, and what the cell holds now
 * between a fifth and one and a half times it (a gauge that reports 100, or 0, reads nothing).
 */
export function plausibleMah(full: number, design: number) {
  return design >= 500 && design <= 20_000 && full >= design * 0.2 && full <= design * 1.5;
}

/** One source of wear that could not be read, and why: doctor says it, the feature never judges from it. */
export interface Unread {
  /** What was asked: "power_supply", "tradeinmode", "storage life", "app ids", "/data/local/tmp", "diagnostics relay". */
  what: string;
  /** absent (the phone has no such file or command), unreadable (denied), refused, or garbage (it answered something else). */
  why: 'absent' | 'unreadable' | 'refused' | 'garbage';
  detail?: string;
}

/** What a phone told of its wear in its last read; every part optional. */
export interface WearReading {
  /** Each battery source that answered, best first (the feature takes figures from the first that has them). */
  batteries: readonly BatteryWear[];
  storage?: StorageWear;
  apps?: AppIds;
  /** Third-party packages installed (names, as the phone printed them: untrusted text). */
  thirdParty?: readonly string[];
  tmp?: { entries?: number; kib?: number };
  unread: readonly Unread[];
}

export interface WearReader {
  /** The reading of the device's current connection, from what its inventory already read; undefined when it read none. */
  readonly reading: (registry: Pick<DeviceRegistry, 'facet'>, key: string) => WearReading | undefined;
}

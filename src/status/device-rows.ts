import { batteryOf, problemsOf } from '../health/monitor.js';
import { chargingOf, isReadyState } from '../cloud/device-facts.js';
import type { DeviceInfo } from '../cloud/types.js';
import { dropUndefined } from '../util/drop-undefined.js';
import { hubPortOf, type HubPort } from '../config/hub-ports.js';
import { chargeWayOf, type ChargeWays } from '../config/charge-ways.js';
import { pauseOfUdid } from '../hub/charge-pauses.js';
import { BatteryProtections } from '../actions/samsung/state.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { PlatformName } from '../platforms/source.js';
import type { DeviceMapping } from '../actions/device-mapping.js';
import { claimOf } from '../devices/claims.js';
import type { Platform } from '../devices/record.js';
import { cellsOf, type DeviceFeature } from '../devices/feature.js';

/** One device as people and dashboards see it: what `list` prints and the per-device metrics expose. */
export interface DeviceRow {
  udid: string;
  /** adb's serial (HOST:PORT over TCP); the udid for an iPhone. */
  serial: string;
  state: string;
  status: string;
  platform: string;
  model?: string;
  version?: string;
  /** The metrics label its platform puts the version under (PlatformName.versionLabel). */
  versionLabel?: string;
  batteryPercent?: number;
  batteryCelsius?: number;
  charging?: boolean;
  /** The battery's health as the phone names it (GOOD, OVERHEAT, ...). */
  batteryHealth?: string;
  /** Seconds the battery has been full on external power without a break; 0 when it is not. */
  batteryFullSeconds?: number;
  /** The most the plugged charger offers (mV). */
  chargerMillivolts?: number;
  batteryCycles?: number;
  /** State of health, % of the design capacity. */
  batteryHealthPercent?: number;
  storageFreeBytes?: number;
  memoryAvailableBytes?: number;
  usb?: string;
  /** The hub (uhubctl's location) and port behind it, where the settings map it (hubPorts). */
  hub?: string;
  hubPort?: number;
  transportId?: string;
  product?: string;
  /** The way of charge control that applies to it (charge.ways), when not off. */
  chargeWay?: string;
  /** Where Samsung's battery protection stands on it (charge.ways = samsung): on, pending, not-taken, ... */
  chargeState?: string;
  /** While its charge is paused: when the port goes on again at the latest (ms, wall clock). */
  chargePausedUntil?: number;
  /** Ready and answering its inventory. */
  up: boolean;
  problems: string[];
  message?: string;
  /** When its last inventory answered (ms, wall clock). */
  inventoriedAt?: number;
  /** The features' `list` cells, by column key (readiness, usbPort); absent when none says anything. */
  features?: Record<string, string>;
}

/** What rows read of the device registry: the records behind a udid (through its index, not a scan), and the features' facets. */
export type RowRecords = Pick<DeviceRegistry, 'byUdid' | 'facet' | 'list'>;

/** The actions' one look-up of a device's hub port and charge way, and the platform whose phones it maps. */
export interface RowMapping {
  look: DeviceMapping;
  platform: Platform;
}

export function deviceRows(
  infos: readonly DeviceInfo[],
  records: RowRecords,
  ports: ReadonlyMap<string, HubPort> = new Map(),
  ways: ChargeWays = [],
  /** Each platform's names (src/agent/platforms.ts): a row shows its platform's, else the cloud's platformName as it is. */
  names: readonly PlatformName[] = [],
  /** Given, the port and way are the actions' (a key naming two phones maps neither); else read from `ports` and `ways`. */
  mapping?: RowMapping,
  /** Given (by `list`), each feature's cells of the device. */
  features: readonly DeviceFeature[] = [],
): DeviceRow[] {
  const claims = mapping ? records.list(mapping.platform).map((r) => claimOf(r)) : [];
  return infos.map((info) => {
    const behind = records.byUdid(info.udid);
    // A phone on USB and over TCP has two records: the row shows the USB one, as the report does.
    const record = behind.find((r) => r.usb?.usb !== undefined) ?? behind[0];
    // A paused phone is off adb, without a record, and its row says so.
    const pause = pauseOfUdid(records, info.udid);
    const serial = record?.serial ?? pause?.serial ?? info.udid;
    const claim = record ? claimOf(record, info.udid) : { serial, udid: info.udid };
    const found = mapping?.look.wayOf(claim, claims, info.modelName);
    const way = !mapping ? chargeWayOf(ways, { udid: info.udid, serial, model: info.modelName }) : found?.kind === 'way' ? found.way : 'off';
    const percent = info.battery?.percentage === undefined ? NaN : Number(info.battery.percentage);
    const inventoriedAt = record?.inventoriedAt;
    // What the health rules keep of the battery beyond the report's figures.
    const battery = batteryOf(records, record?.key)?.signals;
    const mapped = mapping?.look.portOf(claim, claims);
    const place = !mapping ? hubPortOf(ports, info.udid, serial) : mapped?.kind === 'mapped' ? mapped.value : undefined;
    const cells = cellsOf(features, info, record);
    const name = names.find((n) => n.platformName === info.platformName);
    return dropUndefined({
      udid: info.udid,
      serial,
      state: info.state,
      status: info.status,
      platform: name?.shown ?? info.platformName,
      model: info.modelName,
      version: info.platformVersion,
      versionLabel: name?.versionLabel,
      batteryPercent: Number.isFinite(percent) ? percent : undefined,
      batteryCelsius: info.battery?.temperature,
      charging: chargingOf(info.battery?.status),
      batteryHealth: info.battery?.health,
      batteryFullSeconds: battery?.heldFullSeconds,
      chargerMillivolts: battery?.chargerMillivolts,
      batteryCycles: battery?.cycleCount,
      batteryHealthPercent: battery?.healthPercent,
      storageFreeBytes: info.storage ? Math.max(0, info.storage.total - info.storage.used) : undefined,
      memoryAvailableBytes: info.memory ? Math.max(0, info.memory.total - info.memory.used) : undefined,
      usb: record?.usb?.usb,
      hub: place?.hub,
      hubPort: place?.port,
      transportId: record?.usb?.transportId,
      product: record?.usb?.product,
      chargeWay: way === 'off' ? undefined : way,
      chargeState: way === 'samsung' ? ((record && new BatteryProtections(records, record.platform).of(serial)?.state) ?? 'pending') : undefined,
      chargePausedUntil: pause && !pause.ended ? pause.untilWall : undefined,
      up: isReadyState(info.state) && inventoriedAt !== undefined && (record?.failures ?? 0) === 0,
      problems: [...problemsOf(records, record?.key)],
      message: info.message,
      inventoriedAt,
      features: Object.keys(cells).length ? cells : undefined,
    });
  });
}

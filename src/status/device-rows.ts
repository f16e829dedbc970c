import type { LongDevice } from '../platforms/android/adb/devices-long.js';
import { chargingOf, isReadyState } from '../cloud/device-facts.js';
import type { DeviceInfo } from '../cloud/types.js';
import { dropUndefined } from '../util/drop-undefined.js';

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
  batteryPercent?: number;
  batteryCelsius?: number;
  charging?: boolean;
  storageFreeBytes?: number;
  memoryAvailableBytes?: number;
  usb?: string;
  transportId?: string;
  product?: string;
  /** Ready and answering its inventory. */
  up: boolean;
  problems: string[];
  message?: string;
  /** When its last inventory answered (ms, wall clock). */
  inventoriedAt?: number;
}

export interface RowContext {
  serialOf(udid: string): string | undefined;
  /** adb's long listing by serial. */
  topology: ReadonlyMap<string, LongDevice>;
  problems(udid: string): readonly string[];
  inventoriedAt(serial: string, udid: string): number | undefined;
  /** Inventories in a row that did not answer. */
  failures(serial: string): number;
}

export function deviceRows(infos: readonly DeviceInfo[], ctx: RowContext): DeviceRow[] {
  return infos.map((info) => {
    const serial = ctx.serialOf(info.udid) ?? info.udid;
    const long = ctx.topology.get(serial);
    const percent = info.battery?.percentage === undefined ? NaN : Number(info.battery.percentage);
    const inventoriedAt = ctx.inventoriedAt(serial, info.udid);
    return dropUndefined({
      udid: info.udid,
      serial,
      state: info.state,
      status: info.status,
      platform: info.isIos ? 'iOS' : 'Android',
      model: info.modelName,
      version: info.platformVersion,
      batteryPercent: Number.isFinite(percent) ? percent : undefined,
      batteryCelsius: info.battery?.temperature,
      charging: chargingOf(info.battery?.status),
      storageFreeBytes: info.storage ? Math.max(0, info.storage.total - info.storage.used) : undefined,
      memoryAvailableBytes: info.memory ? Math.max(0, info.memory.total - info.memory.used) : undefined,
      usb: long?.usb,
      transportId: long?.transportId,
      product: long?.product,
      up: isReadyState(info.state) && inventoriedAt !== undefined && ctx.failures(serial) === 0,
      problems: [...ctx.problems(info.udid)],
      message: info.message,
      inventoriedAt,
    });
  });
}

import { chargingOf, isReadyState } from '../cloud/device-facts.js';
import type { DeviceInfo } from '../cloud/types.js';
import { dropUndefined } from '../util/drop-undefined.js';
import { hubPortOf, type HubPort } from '../config/hub-ports.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { PlatformName } from '../platforms/source.js';
import type { DeviceMapping } from '../actions/device-mapping.js';
import { claimOf } from '../devices/claims.js';
import type { Platform } from '../devices/record.js';
import { cellsOf, fieldsOf, serialOf, type DeviceFeature } from '../devices/feature.js';
import { placed, type DeviceRow } from '../devices/feature-view.js';
import { hubOfPort, usbBus } from '../util/usb-path.js';

export type { DeviceRow } from '../devices/feature-view.js';

/** What rows read of the device registry: the records behind a udid (through its index, not a scan). */
export type RowRecords = Pick<DeviceRegistry, 'byUdid' | 'list'>;

/** The actions' one look-up of a device's hub port and charge way, and the platform whose phones it maps. */
export interface RowMapping {
  look: DeviceMapping;
  platform: Platform;
}

export interface RowOptions {
  /** The hub port behind each phone (settings: hubPorts), read when no mapping is given. */
  ports?: ReadonlyMap<string, HubPort>;
  /** Each platform's names (src/agent/platforms.ts): a row shows its platform's, else the cloud's platformName as it is. */
  names?: readonly PlatformName[];
  /** Given, the port is the actions' (a key naming two phones maps none), and the features read the same claims. */
  mapping?: RowMapping;
  /** What each feature adds to the row: its fields, in their places, and its `list` cells. */
  features?: readonly DeviceFeature[];
  /** What the platforms read of a device that no DeviceInfo field carries (src/platforms/facts.ts), by record key. */
  facts?: { pageSize(key: string): number | undefined };
  /** What the lab calls its hubs (settings: hubNames), by hub. */
  hubNames?: ReadonlyMap<string, string>;
}

/** One device as people and dashboards see it: what `list` prints and the per-device metrics expose. */
export function deviceRows(infos: readonly DeviceInfo[], records: RowRecords, options: RowOptions = {}) {
  const { ports = new Map<string, HubPort>(), names = [], mapping, features = [], facts, hubNames } = options;
  const claims = mapping ? records.list(mapping.platform).map((r) => claimOf(r)) : [];
  const fields = fieldsOf(features);
  return infos.map((info) => {
    const behind = records.byUdid(info.udid);
    // A phone on USB and over TCP has two records: the row shows the USB one, as the report does.
    const record = behind.find((r) => r.usb?.usb !== undefined) ?? behind[0];
    // A device a feature reports while no source lists it (a paused phone, off adb) has no record: the feature names its serial.
    const serial = record?.serial ?? serialOf(features, info.udid) ?? info.udid;
    const claim = record ? claimOf(record, info.udid) : { serial, udid: info.udid };
    const subject = { info, device: record, serial, claim, claims };
    const added = fields.map((f) => ({ place: f.place, item: [f.key, f.value(subject)] as const }));
    // NaN when the battery gives no percentage, or not a number.
    const percent = Number(info.battery?.percentage);
    const inventoriedAt = record?.inventoriedAt;
    const mapped = mapping?.look.portOf(claim, claims);
    const place = !mapping ? hubPortOf(ports, info.udid, serial) : mapped?.kind === 'mapped' ? mapped.value : undefined;
    const cells = cellsOf(features, info, record);
    const name = names.find((n) => n.platformName === info.platformName);
    const usb = record?.usb?.usb;
    // The hub its port hangs off, as the kernel names it, else the one the operator maps it to.
    const hub = usbBus(usb) !== undefined ? hubOfPort(usb!) : place?.hub;
    const own: Array<readonly [string, unknown]> = [
      ['udid', info.udid],
      ['serial', serial],
      ['state', info.state],
      ['status', info.status],
      ['platform', name?.shown ?? info.platformName],
      ['model', info.modelName],
      ['version', info.platformVersion],
      ['batteryPercent', Number.isFinite(percent) ? percent : undefined],
      ['batteryCelsius', info.battery?.temperature],
      ['charging', chargingOf(info.battery?.status)],
      ['batteryHealth', info.battery?.health],
      ['storageFreeBytes', info.storage ? Math.max(0, info.storage.total - info.storage.used) : undefined],
      ['memoryAvailableBytes', info.memory ? Math.max(0, info.memory.total - info.memory.used) : undefined],
      // The kernel's page size (16 KB kernels from Android 15): the cloud's DeviceInfo has no field for it.
      ['pageSizeBytes', record && facts?.pageSize(record.key)],
      ['usb', usb],
      ['hub', place?.hub],
      ['hubPort', place?.port],
      ['hubName', hub === undefined ? undefined : hubNames?.get(hub)],
      ['transportId', record?.usb?.transportId],
      ['product', record?.usb?.product],
      ['up', isReadyState(info.state) && inventoriedAt !== undefined && (record?.failures ?? 0) === 0],
      ['message', info.message],
      ['inventoriedAt', inventoriedAt],
      ['features', Object.keys(cells).length ? cells : undefined],
    ];
    // `list --json` keeps its keys in this order: the features' fields go where each says.
    return dropUndefined(Object.fromEntries(placed(own, ([key]) => key, added))) as DeviceRow;
  });
}

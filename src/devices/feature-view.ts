// What a feature shows of a device in the views (`list`, `--json`, per-device series), declared through DeviceFeature
// so the views name no feature; each field, column and series says where it goes among the view's own.
import type { DeviceInfo } from '../cloud/types.js';
import type { Paint } from '../util/paint.js';
import type { Sample } from '../util/metric.js';
import type { Claim } from './claims.js';
import type { DeviceSnapshot } from './snapshot.js';

/** One device as `list` prints it and the per-device metrics expose it; a feature adds its own fields by key. */
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
  /** The battery's health as the phone names it (GOOD, OVERHEAT, ...). */
  batteryHealth?: string;
  storageFreeBytes?: number;
  memoryAvailableBytes?: number;
  /** The kernel's memory page size in bytes, where its platform read it (src/platforms/facts.ts). */
  pageSizeBytes?: number;
  usb?: string;
  /** The hub (uhubctl's location) and port behind it, where the settings map it (hubPorts). */
  hub?: string;
  hubPort?: number;
  /** What the lab calls the hub its port hangs off (hubNames). */
  hubName?: string;
  transportId?: string;
  product?: string;
  /** Ready and answering its inventory. */
  up: boolean;
  message?: string;
  /** When its last inventory answered (ms, wall clock). */
  inventoriedAt?: number;
  /** The features' `list` cells, by column key (readiness, usbPort); absent when none says anything. */
  features?: Record<string, string>;
  /** What the features add, by the keys they declare. */
  [key: string]: unknown;
}

/** Where a feature's field, column or series goes: after or before the view's own of that name, else at the end. */
export type Place = { after: string } | { before: string };

/** What a feature reads of one device for its fields. */
export interface RowSubject {
  info: DeviceInfo;
  /** Its record, absent for a device no source lists (one a feature reports itself). */
  device: DeviceSnapshot | undefined;
  /** Its serial as the row shows it. */
  serial: string;
  /** Who it claims to be, and what every listed device of the actions' platform claims: the actions' look-up reads both. */
  claim: Claim;
  claims: readonly Claim[];
}

/** A field a feature adds to every device's row (`list --json`). */
export interface RowField {
  key: string;
  place: Place;
  /** Its value for the device; undefined leaves the key out. */
  value(subject: RowSubject): unknown;
}

/** A column of `list`'s table read from the row: the feature's fields and the view's own. */
export interface RowColumn {
  title: string;
  place?: Place;
  cell(row: DeviceRow): string;
  /** Its cell as painted, by what the row says. */
  paint?(row: DeviceRow, text: string, p: Paint): string;
  /** Left out when no row fills it. */
  optional?: boolean;
}

/** A column of the feature's `cells`: a device it says nothing of shows "-", and the column is left out when no device has a cell. */
export interface CellColumn {
  /** Its key in a `list --json` row's `features`. */
  key: string;
  title: string;
  /** The view's own column whose cell this one gives, where a device has one, instead of a column of its own (the USB layer's port in USB). */
  inside?: string;
}

/** A column a feature adds to `list`. */
export type FeatureColumn = RowColumn | CellColumn;

/** A per-device gauge a feature adds to /metrics, read from each row. */
export interface DeviceGauge {
  name: string;
  help: string;
  place?: Place;
  samples(row: DeviceRow): Sample[];
}

/** The one sample of a device's gauge, labelled by its udid; none while the value is unknown. */
export function udidSample(row: DeviceRow, value: number | undefined): Sample[] {
  return value === undefined ? [] : [{ labels: { udid: row.udid }, value }];
}

/** The view's own items with what the features add placed among them (see Place), in registration order. */
export function placed<T>(own: readonly T[], nameOf: (item: T) => string, added: ReadonlyArray<{ place?: Place | undefined; item: T }>) {
  const anchorOf = (place: Place) => ('after' in place ? place.after : place.before);
  const names = new Set(own.map(nameOf));
  const at = (after: boolean, name: string) =>
    added.flatMap(({ place, item }) => (place && anchorOf(place) === name && 'after' in place === after ? [item] : []));
  const end = added.flatMap(({ place, item }) => (place && names.has(anchorOf(place)) ? [] : [item]));
  return [...own.flatMap((item) => [...at(false, nameOf(item)), item, ...at(true, nameOf(item))]), ...end];
}

// The double's memory of reported inventory: the latest body per nodeId and
// the latest DeviceInfo per udid, turned into the spec's Device shape for the
// GET endpoints. Bodies reaching here have passed schema.ts.

import type { DeviceInfo, ReportBody } from '../../src/cloud/types.js';

/** A device as the cloud lists it (GET /devices privateDevices, GET /devices/{udid}). */
export interface Device {
  id: number;
  isBooked: boolean;
  isOnline: boolean;
  modelName: string;
  deviceName: string;
  resolution: { width: number; height: number };
  platformName: string;
  platformVersion: string;
  installedBrowsers: { name: string; version: string }[];
  deviceImageUrl: string;
  isFavorite: boolean;
  isCloud: boolean;
  isMyOrg: boolean;
  isMyOwn: boolean;
  udid?: string;
}

export interface StoredDevice {
  id: number;
  nodeId: string;
  info: DeviceInfo;
  /** False when last reported UNPLUGGED, or when its node's latest report left it out. */
  isOnline: boolean;
  isBooked: boolean;
  /** Epoch ms of the report that last carried it. */
  reportedAt: number;
}

export class InventoryStore {
  private readonly byNode = new Map<string, { body: ReportBody; receivedAt: number }>();
  private readonly byUdid = new Map<string, StoredDevice>();
  private nextId = 1;

  /** Stores a report; devices in `rejected` (udids answered in failedDevices) are not stored. */
  put(body: ReportBody, rejected: ReadonlySet<string>, now: number): void {
    this.byNode.set(body.nodeId, { body, receivedAt: now });
    const present = new Set<string>();
    for (const info of body.devices ?? []) {
      if (rejected.has(info.udid)) continue;
      present.add(info.udid);
      const known = this.byUdid.get(info.udid);
      this.byUdid.set(info.udid, {
        id: known?.id ?? this.nextId++,
        nodeId: body.nodeId,
        info,
        isOnline: info.status !== 'UNPLUGGED',
        isBooked: known?.isBooked ?? false,
        reportedAt: now,
      });
    }
    for (const device of this.byUdid.values()) {
      if (device.nodeId === body.nodeId && !present.has(device.info.udid)) device.isOnline = false;
    }
  }

  latestReport(nodeId: string): ReportBody | undefined {
    return this.byNode.get(nodeId)?.body;
  }

  nodeIds(): string[] {
    return [...this.byNode.keys()];
  }

  stored(udid: string): StoredDevice | undefined {
    return this.byUdid.get(udid);
  }

  all(): StoredDevice[] {
    return [...this.byUdid.values()];
  }

  /** Finds a device by udid or by its integer id (as a string, from a path). */
  find(key: string): StoredDevice | undefined {
    const byUdid = this.byUdid.get(key);
    if (byUdid) return byUdid;
    if (!/^\d+$/.test(key)) return undefined;
    const id = Number(key);
    return this.all().find((d) => d.id === id);
  }

  setBooked(udid: string, isBooked: boolean): void {
    const device = this.byUdid.get(udid);
    if (device) device.isBooked = isBooked;
  }

  clear(): void {
    this.byNode.clear();
    this.byUdid.clear();
  }
}

export function toDevice(stored: StoredDevice): Device {
  const { info } = stored;
  return {
    id: stored.id,
    isBooked: stored.isBooked,
    isOnline: stored.isOnline,
    modelName: info.modelName ?? '',
    deviceName: info.deviceName ?? '',
    resolution: { width: info.resolution?.width ?? 0, height: info.resolution?.height ?? 0 },
    platformName: info.platformName ?? '',
    platformVersion: info.platformVersion ?? '',
    installedBrowsers: (info.installedBrowsers ?? []).map((b) => ({ name: b.name, version: '' })),
    deviceImageUrl: '',
    isFavorite: false,
    isCloud: false,
    isMyOrg: true,
    isMyOwn: true,
    udid: info.udid,
  };
}

/** Applies the GET /devices query filters the double understands; unknown ones are ignored. */
export function matchesQuery(device: Device, stored: StoredDevice, query: URLSearchParams): boolean {
  const bool = (name: string): boolean | undefined => {
    const v = query.get(name);
    return v === 'true' ? true : v === 'false' ? false : undefined;
  };
  const list = (name: string): string[] | undefined =>
    query
      .get(name)
      ?.split(',')
      .map((s) => s.trim());
  const udid = query.get('udid');
  if (udid !== null && device.udid !== udid) return false;
  const isOnline = bool('isOnline');
  if (isOnline !== undefined && device.isOnline !== isOnline) return false;
  const isBooked = bool('isBooked');
  if (isBooked !== undefined && device.isBooked !== isBooked) return false;
  const isPlugged = bool('isPlugged');
  if (isPlugged !== undefined && (stored.info.status !== 'UNPLUGGED') !== isPlugged) return false;
  const modelName = query.get('modelName');
  if (modelName !== null && device.modelName !== modelName) return false;
  const platformName = query.get('platformName');
  if (platformName !== null && device.platformName !== platformName) return false;
  const names = list('deviceName');
  if (names && !names.includes(device.deviceName)) return false;
  const versions = list('platformVersion');
  if (versions && !versions.includes(device.platformVersion)) return false;
  const browser = query.get('browserName');
  if (browser !== null && !device.installedBrowsers.some((b) => b.name === browser)) return false;
  const appiumDisabled = bool('appiumDisabled');
  if (appiumDisabled !== undefined && (stored.info.support?.appiumDisabled ?? false) !== appiumDisabled) return false;
  return true;
}

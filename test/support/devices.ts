// The test doubles of a device and of a device source that the report-path
// tests share: one Android phone in the report's shape, and a source that
// hands out what the test gives.
import { EventEmitter } from 'node:events';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { worded, type PresenceEntry } from '../../src/devices/presence.js';
import type { DeviceRegistry } from '../../src/devices/registry.js';
import type { CollectRequest, DeviceSource } from '../../src/platforms/source.js';

/** A ready Android phone as the report carries it, with `over` on top. */
export const androidPhone = (udid: string, over: Partial<DeviceInfo> = {}): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  ...over,
});

/** An Android source whose collect the test gives (each device said of the record android/UDID); everything else answers at once. */
export function fakeSource(collect: (request: CollectRequest) => Promise<DeviceInfo[]>): DeviceSource {
  return Object.assign(new EventEmitter(), {
    platform: 'android' as const,
    readyState: 'device',
    label: 'fake',
    listed: true,
    lastError: undefined,
    start: async () => undefined,
    stop: () => undefined,
    listOnce: async () => undefined,
    invalidateSlow: () => undefined,
    collect: async (request: CollectRequest) => (await collect(request)).map((info) => ({ key: `android/${info.udid}`, info })),
  }) as DeviceSource;
}

/** What the report carries of each device a presence entry owes: its last inventory as the registry's readings keep it, with the writer's words. */
export function carriedOf(registry: Pick<DeviceRegistry, 'readings'>, entry: PresenceEntry): DeviceInfo[] {
  return entry.devices.flatMap((d) => {
    const inventory = registry.readings.inventoryOf(d.udid, d.key);
    return inventory ? [worded(inventory, d, entry.reason)] : [];
  });
}

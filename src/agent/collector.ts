import type { DeviceInfo } from '../cloud/types.js';
import { notReadyDeviceInfo } from '../inventory/assemble.js';
import { dedupeByUdid } from '../inventory/dedupe.js';
import type { DeviceProber } from '../inventory/probe.js';
import type { Logger } from '../log/logger.js';
import { mapLimit } from '../util/limit.js';

export interface CollectorOptions {
  concurrency: number;
  logger: Logger;
}

/** Which ready devices get a fresh probe: all, or only these adb serials or udids. */
export type Refresh = 'all' | ReadonlySet<string>;

/**
 * Turns the adb device list into DeviceInfo records: ready devices are probed
 * (bounded concurrency), the others described by their adb state. A device
 * not refreshed in this round keeps its last good record, and so does one
 * whose probe failed outright.
 */
export class InventoryCollector {
  private readonly last = new Map<string, DeviceInfo>();
  /** udid learnt per adb serial, so a device that goes offline keeps its udid. */
  private readonly udids = new Map<string, string>();
  private readonly probeErrors = new Map<string, string>();

  constructor(
    private readonly prober: DeviceProber,
    private readonly options: CollectorOptions,
  ) {}

  async collect(devices: ReadonlyMap<string, string>, refresh: Refresh = 'all'): Promise<DeviceInfo[]> {
    for (const serial of this.last.keys()) {
      if (devices.get(serial) !== this.last.get(serial)?.state) {
        // The connection ended or changed state: per-connection facts are stale.
        this.last.delete(serial);
        this.prober.forget(serial);
      }
    }
    for (const serial of this.udids.keys()) if (!devices.has(serial)) this.udids.delete(serial);
    const entries = [...devices].sort(([a], [b]) => a.localeCompare(b));
    const infos = await mapLimit(entries, this.options.concurrency, async ([serial, state]) => {
      if (state !== 'device') return notReadyDeviceInfo(serial, state, this.udids.get(serial));
      const cached = this.last.get(serial);
      if (cached && refresh !== 'all' && !refresh.has(serial) && !refresh.has(cached.udid)) return cached;
      const info = await this.probe(serial, state, cached);
      this.udids.set(serial, info.udid);
      return info;
    });
    return dedupeByUdid(infos);
  }

  private async probe(serial: string, state: string, cached: DeviceInfo | undefined): Promise<DeviceInfo> {
    try {
      const info = await this.prober.probe(serial, state);
      this.last.set(serial, info);
      if (this.probeErrors.delete(serial)) this.options.logger.info({ serial }, 'device answers its inventory again');
      return info;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (this.probeErrors.get(serial) !== text) {
        this.options.logger.warn(
          { serial, err: text },
          cached ? 'inventory of the device failed; its last good inventory is reported' : 'inventory of the device failed; it is reported with its adb state only',
        );
        this.probeErrors.set(serial, text);
      }
      if (cached) return cached;
      return { ...notReadyDeviceInfo(serial, state, this.udids.get(serial)), message: `the inventory failed: ${text}` };
    }
  }
}

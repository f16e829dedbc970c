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
  /** adb serial -> the problem of its last inventory (failed, or cut short). */
  private readonly problems = new Map<string, string>();

  constructor(
    private readonly prober: DeviceProber,
    private readonly options: CollectorOptions,
  ) {}

  /** adb serials whose last inventory failed or was cut short: worth asking again soon. */
  get failing(): string[] {
    return [...this.problems.keys()];
  }

  async collect(devices: ReadonlyMap<string, string>, refresh: Refresh = 'all'): Promise<DeviceInfo[]> {
    for (const serial of this.last.keys()) {
      if (devices.get(serial) !== this.last.get(serial)?.state) {
        // The connection ended or changed state: per-connection facts are stale.
        this.last.delete(serial);
        this.prober.forget(serial);
      }
    }
    for (const serial of this.udids.keys()) if (!devices.has(serial)) this.udids.delete(serial);
    for (const serial of this.problems.keys()) if (!devices.has(serial)) this.problems.delete(serial);
    const entries = [...devices].sort(([a], [b]) => a.localeCompare(b));
    const infos = await mapLimit(entries, this.options.concurrency, async ([serial, state]) => {
      if (state !== 'device') return notReadyDeviceInfo(serial, state, this.udids.get(serial));
      const cached = this.last.get(serial);
      if (cached && refresh !== 'all' && !refresh.has(serial) && !refresh.has(cached.udid)) return cached;
      const info = await this.probe(serial, state, cached);
      if (info) this.udids.set(serial, info.udid);
      return info;
    });
    return dedupeByUdid(infos.filter((info): info is DeviceInfo => info !== undefined));
  }

  private async probe(serial: string, state: string, cached: DeviceInfo | undefined): Promise<DeviceInfo | undefined> {
    try {
      const info = await this.prober.probe(serial, state);
      this.last.set(serial, info);
      if (info.message) this.note(serial, info.message, 'the inventory of the device was cut short; the fields it did not report are left out');
      else if (this.problems.delete(serial)) this.options.logger.info({ serial }, 'device answers its inventory in full again');
      return info;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (cached) {
        this.note(serial, text, 'inventory of the device failed; its last good inventory is reported');
        return cached;
      }
      const udid = this.udids.get(serial);
      if (udid === undefined && /:\d+$/.test(serial)) {
        // A device reached over TCP is named HOST:PORT by adb, which is not its
        // udid: reporting it under that name would leave a phantom in the cloud.
        this.note(serial, text, 'inventory of the device failed before it said who it is; it is left out of reports until it answers');
        return undefined;
      }
      this.note(serial, text, 'inventory of the device failed; it is reported with its adb state only');
      return { ...notReadyDeviceInfo(serial, state, udid), message: `the inventory failed: ${text}` };
    }
  }

  /** One warning per device and distinct problem, not one per report. */
  private note(serial: string, problem: string, what: string): void {
    if (this.problems.get(serial) === problem) return;
    this.problems.set(serial, problem);
    this.options.logger.warn({ serial, err: problem }, what);
  }
}

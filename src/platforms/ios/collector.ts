// DeviceInfo[] for the iPhones the watcher knows: one probe per phone per
// call (bounded concurrency, so a silent phone holds up only itself), the
// last good inventory kept per udid for a phone whose lockdown goes quiet.
import { performance } from 'node:perf_hooks';
import type { DeviceInfo } from '../../cloud/types.js';
import type { Logger } from '../../log/logger.js';
import { mapLimit } from '../../util/limit.js';
import type { UsbmuxdAddress } from './address.js';
import type { Dict } from './framing.js';
import { iosDeviceInfo, notAnsweringDeviceInfo, notPairedDeviceInfo } from './inventory.js';
import type { ProbeResult } from './probe.js';
import type { MuxDevice } from './usbmuxd-client.js';

export interface IosCollectorOptions {
  stepTimeoutMs: number;
  concurrency: number;
  logger: Logger;
  /** How long the root domain (identity, name, version) read on a connection is used before it is read again. */
  slowFactsRefreshMs?: number;
  /** For tests; the real probe by default. */
  probe?: (address: UsbmuxdAddress, device: MuxDevice, stepTimeoutMs: number, known?: Dict) => Promise<ProbeResult>;
  /** Monotonic clock, for tests. */
  now?: () => number;
}

/** The root domain of one usbmuxd connection (DeviceID), and when it was read. */
interface Identity {
  deviceId: number;
  root: Dict;
  at: number;
}

export interface IosSource {
  readonly address: UsbmuxdAddress;
  readonly devices: ReadonlyMap<string, string>;
  device(udid: string): MuxDevice | undefined;
}

export class IosCollector {
  private readonly lastGood = new Map<string, DeviceInfo>();
  private readonly problems = new Map<string, string>();
  private readonly answeredAt = new Map<string, number>();
  private readonly identities = new Map<string, Identity>();

  constructor(private readonly options: IosCollectorOptions) {}

  async collect(source: IosSource): Promise<DeviceInfo[]> {
    const udids = [...source.devices.keys()].sort();
    for (const udid of this.lastGood.keys()) if (!source.devices.has(udid)) this.lastGood.delete(udid);
    for (const map of [this.problems, this.answeredAt, this.identities]) for (const udid of map.keys()) if (!source.devices.has(udid)) map.delete(udid);
    if (!udids.length) return [];
    // Loaded with the first iPhone: node:tls and the lockdown client cost nothing before.
    const probe = this.options.probe ?? (await import('./probe.js')).probeIphone;
    const infos = await mapLimit(udids, this.options.concurrency, async (udid) => {
      const device = source.device(udid);
      if (!device) return undefined;
      const known = this.identityOf(udid, device.deviceId);
      const result = await probe(source.address, device, this.options.stepTimeoutMs, known);
      if (result.kind === 'ok' && !known) this.identities.set(udid, { deviceId: device.deviceId, root: result.values.root, at: this.now() });
      return this.toInfo(udid, result);
    });
    return infos.filter((i): i is DeviceInfo => i !== undefined);
  }

  /**
   * The root domain read on this connection, while it is fresh: a replug
   * (new DeviceID, maybe after an update) or the slow refresh reads it again.
   */
  private identityOf(udid: string, deviceId: number): Dict | undefined {
    const known = this.identities.get(udid);
    if (!known || known.deviceId !== deviceId || this.now() - known.at >= (this.options.slowFactsRefreshMs ?? 900_000)) {
      this.identities.delete(udid);
      return undefined;
    }
    return known.root;
  }

  private now(): number {
    return this.options.now ? this.options.now() : performance.now();
  }

  /** When the phone's last inventory answered (ms, wall clock). */
  inventoriedAt(udid: string): number | undefined {
    return this.answeredAt.get(udid);
  }

  private toInfo(udid: string, r: ProbeResult): DeviceInfo {
    switch (r.kind) {
      case 'ok': {
        const info = iosDeviceInfo(udid, r.values);
        this.lastGood.set(udid, info);
        this.answeredAt.set(udid, Date.now());
        if (this.problems.delete(udid)) this.options.logger.info({ udid }, 'iPhone answers its inventory again');
        return info;
      }
      case 'not-paired': {
        this.note(udid, r.detail, 'iPhone is not paired with this host: unlock it, tap Trust, then run `idevicepair pair`');
        const pub = r.public ? publicIdentity(udid, r.public) : undefined;
        return notPairedDeviceInfo(udid, r.detail, pub ?? this.lastGood.get(udid));
      }
      case 'silent':
        this.note(udid, r.detail, 'iPhone lockdown did not answer; its last good inventory is reported');
        return notAnsweringDeviceInfo(udid, r.detail, this.lastGood.get(udid));
    }
  }

  /** One warning per phone and distinct problem, not one per report. */
  private note(udid: string, problem: string, what: string): void {
    if (this.problems.get(udid) === problem) return;
    this.problems.set(udid, problem);
    this.options.logger.warn({ udid, err: problem }, what);
  }
}

/** What lockdown shows any host (model, version, name) for an unpaired phone. */
function publicIdentity(udid: string, values: Dict): DeviceInfo {
  return iosDeviceInfo(udid, { root: values });
}

import type { AdbClient } from '../adb/client.js';
import { ShellTimeoutError } from '../adb/errors.js';
import type { DeviceInfo } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import { assembleDeviceInfo, staticFactsFromSections, type InventoryConfig, type StaticFacts } from './assemble.js';
import { buildInventoryScript, SECTION, splitSections } from './script.js';

export interface ProberOptions {
  timeoutMs: number;
  config: InventoryConfig;
  hiddenDevices: readonly string[];
  logger: Logger;
}

export interface ProbeCounters {
  shellSessions: number;
  bytesRead: number;
}

/**
 * Runs the inventory of one ready device: ONE shell session with the batched
 * script. Facts that cannot change while the device stays plugged are read
 * on the first probe of a connection only.
 */
export class DeviceProber {
  private readonly statics = new Map<string, StaticFacts>();
  private readonly scripts = new Map<boolean, string>();
  readonly counters: ProbeCounters = { shellSessions: 0, bytesRead: 0 };

  constructor(
    private readonly adb: AdbClient,
    private readonly options: ProberOptions,
  ) {}

  /** Drops what was cached for a connection that ended. */
  forget(serial: string): void {
    this.statics.delete(serial);
  }

  /**
   * Probes one device; throws only when nothing at all could be read (the
   * caller then keeps the device's last good inventory).
   */
  async probe(serial: string, state: string): Promise<DeviceInfo> {
    const cached = this.statics.get(serial);
    const script = this.script(cached === undefined);
    let output: string;
    let partial = false;
    this.counters.shellSessions++;
    try {
      const result = await this.adb.shell(serial, script, { timeoutMs: this.options.timeoutMs });
      this.counters.bytesRead += result.bytes;
      output = result.output;
    } catch (err) {
      if (!(err instanceof ShellTimeoutError) || !err.partial) throw err;
      // The sections the device finished before it hung are still good.
      output = err.partial;
      partial = true;
      this.counters.bytesRead += Buffer.byteLength(output);
    }
    const observedAtMs = Date.now();
    const sections = splitSections(output);
    if (sections.size === 0) throw new Error(`device ${serial} answered the inventory script with nothing usable`);
    // Cached only once the static probes really answered, so a first probe
    // cut short by a timeout is not mistaken for a device without them.
    if (cached === undefined && sections.has(SECTION.imei)) this.statics.set(serial, staticFactsFromSections(sections));
    const info = assembleDeviceInfo({
      adbSerial: serial,
      adbState: state,
      sections,
      cachedStatic: cached,
      config: this.options.config,
      adbTunnelInfo: tunnelInfo(serial),
      observedAtMs,
    });
    info.isHidden = this.options.hiddenDevices.includes(info.udid);
    if (partial) {
      info.message = `the device stopped answering during the inventory after ${this.options.timeoutMs} ms; fields it did not report are left out. Replug or reboot the device if this repeats.`;
    }
    return info;
  }

  private script(includeStatic: boolean): string {
    let script = this.scripts.get(includeStatic);
    if (!script) {
      script = buildInventoryScript({ includeStatic, reachabilityHost: this.options.config.reachabilityHost });
      this.scripts.set(includeStatic, script);
    }
    return script;
  }
}

/** A device reached over TCP (adb connect) is described by its host and port. */
function tunnelInfo(serial: string): Record<string, unknown> | undefined {
  const match = /^(.+):(\d{1,5})$/.exec(serial);
  return match ? { host: match[1], port: Number(match[2]) } : undefined;
}

import os from 'node:os';
import si from 'systeminformation';
import type { Machine } from '../cloud/types.js';
import { pickNetwork } from './network.js';

export interface MachineCollectorOptions {
  version: string;
  buildNumber: string;
  /** How long the default interface is trusted before systeminformation is asked again. */
  interfaceTtlMs?: number;
}

/**
 * The host's Machine record. systeminformation gives available memory
 * (MemAvailable, not MemFree as os.freemem does) and the default-route
 * interface; the latter spawns `ip route`, so it is cached.
 */
export class MachineCollector {
  private defaultIface: { name: string | undefined; at: number } | undefined;

  constructor(private readonly options: MachineCollectorOptions) {}

  async collect(): Promise<Machine> {
    const [mem, ifaceName] = await Promise.all([si.mem().catch(() => undefined), this.defaultInterface()]);
    const totalmem = mem?.total || os.totalmem();
    return {
      hostname: os.hostname(),
      arch: os.arch(),
      freemem: mem?.available || os.freemem(),
      totalmem,
      platform: os.platform(),
      type: os.type(),
      uptime: Math.floor(os.uptime()),
      version: this.options.version,
      buildNumber: this.options.buildNumber,
      network: pickNetwork(os.networkInterfaces(), ifaceName),
    };
  }

  private async defaultInterface(): Promise<string | undefined> {
    const ttl = this.options.interfaceTtlMs ?? 10 * 60_000;
    if (this.defaultIface && Date.now() - this.defaultIface.at < ttl) return this.defaultIface.name;
    const name = await si.networkInterfaceDefault().catch(() => undefined);
    this.defaultIface = { name: name || undefined, at: Date.now() };
    return this.defaultIface.name;
  }
}

import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { Machine } from '../cloud/types.js';
import { parseMeminfo } from '../util/meminfo.js';
import { pickNetwork } from './network.js';
import { parseDefaultRoute } from './route.js';

interface MachineCollectorOptions {
  version: string;
  buildNumber: string;
  /** Where /proc is (tests point it at a copy). */
  procDir?: string;
}

/**
 * The host's Machine record, from node:os and two /proc files: available memory (MemAvailable, not MemFree as
 * os.freemem gives) and the default route's interface. Read directly rather than through systeminformation, which cost
 * 11 MB of RSS at load for these two facts (docs/performance/journal.md). Elsewhere than Linux the os module's figures
 * stand in.
 */
export class MachineCollector {
  constructor(private readonly options: MachineCollectorOptions) {}

  async collect(): Promise<Machine> {
    const proc = this.options.procDir ?? '/proc';
    const read = (file: string) => readFile(`${proc}/${file}`, 'utf8').catch(() => undefined);
    const [meminfo, routes] = await Promise.all([read('meminfo'), read('net/route')]);
    const mem = meminfo === undefined ? undefined : parseMeminfo(meminfo);
    const totalmem = mem?.total ?? os.totalmem();
    return {
      hostname: os.hostname(),
      arch: os.arch(),
      freemem: mem ? mem.total - mem.used : os.freemem(),
      totalmem,
      platform: os.platform(),
      type: os.type(),
      uptime: Math.floor(os.uptime()),
      version: this.options.version,
      buildNumber: this.options.buildNumber,
      network: pickNetwork(os.networkInterfaces(), routes === undefined ? undefined : parseDefaultRoute(routes)),
    };
  }
}

// What `doctor` waits for, for its status line: the checks still running and, within adb's, the phones whose shell has
// not answered (a hung one holds it up to its timeout).
import type { DoctorAdb } from '../doctor/checks.js';
import { waitingFor } from './progress.js';

export class DoctorWait {
  private readonly running = new Map<string, number>();
  private readonly shells = new Set<string>();
  /** The check whose wait the phones' shells are: named by them while they run. */
  private shellsOf: string | undefined;
  private readonly t0 = Date.now();

  constructor(private readonly shellTimeoutSeconds: number) {}

  /** A check under way, by what it checks ("the cloud"), until it settles. */
  check<T>(what: string, work: Promise<T>) {
    this.running.set(what, (this.running.get(what) ?? 0) + 1);
    const settled = () => {
      const left = this.running.get(what)! - 1;
      if (left) this.running.set(what, left);
      else this.running.delete(what);
    };
    return work.finally(settled);
  }

  /** The adb client the check `of` uses, noting each phone's shell while it runs. */
  adb(adb: DoctorAdb, of: string): DoctorAdb {
    const shells = this.shells;
    this.shellsOf = of;
    return {
      label: adb.label,
      version: () => adb.version(),
      listDevices: () => adb.listDevices(),
      ...(adb.listDevicesLong && { listDevicesLong: () => adb.listDevicesLong!() }),
      shell: (serial, command, options) => {
        shells.add(serial);
        return adb.shell(serial, command, options).finally(() => shells.delete(serial));
      },
    };
  }

  /** The line: the phones' shells first (the long waits), then the other checks still running. */
  text() {
    const parts: string[] = [];
    if (this.shells.size)
      parts.push(`${waitingFor(this.shells.size, "phone's shell", "phones' shells", [...this.shells].sort())}, at most ${this.shellTimeoutSeconds} s`);
    parts.push(...[...this.running.keys()].filter((what) => !(this.shells.size && what === this.shellsOf)));
    if (!parts.length) return undefined;
    return `checking ${Math.floor((Date.now() - this.t0) / 1000)} s: ${parts.join('; ')}`;
  }
}

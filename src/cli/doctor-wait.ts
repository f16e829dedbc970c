// What `doctor` waits for, for its status line: the checks still running and, within adb's, the phones whose shell has
// not answered (a hung one holds it up to its timeout).
import type { DoctorAdb } from '../doctor/checks.js';
import { waitingFor } from './progress.js';

export class DoctorWait {
  /** The checks under way, one entry each: a name twice while two checks of it run. */
  private readonly running: string[] = [];
  private readonly shells = new Set<string>();
  /** The check whose wait the phones' shells are: named by them while they run. */
  private shellsOf: string | undefined;
  private readonly t0 = Date.now();

  constructor(private readonly shellTimeoutSeconds: number) {}

  /** A check under way, by what it checks ("the cloud"), until it settles. */
  check<T>(what: string, work: Promise<T>) {
    this.running.push(what);
    return work.finally(() => this.running.splice(this.running.indexOf(what), 1));
  }

  /** The adb client the check `of` uses, noting each phone's shell while it runs. */
  adb(adb: DoctorAdb, of: string): DoctorAdb {
    this.shellsOf = of;
    return {
      label: adb.label,
      version: () => adb.version(),
      listDevices: () => adb.listDevices(),
      ...(adb.listDevicesLong && { listDevicesLong: () => adb.listDevicesLong!() }),
      shell: (serial, command, options) => {
        this.shells.add(serial);
        return adb.shell(serial, command, options).finally(() => this.shells.delete(serial));
      },
    };
  }

  /** The line: the phones' shells first (the long waits), then the other checks still running. */
  text() {
    const parts: string[] = [];
    if (this.shells.size)
      parts.push(`${waitingFor(this.shells.size, "phone's shell", "phones' shells", [...this.shells].sort())}, at most ${this.shellTimeoutSeconds} s`);
    parts.push(...new Set(this.running.filter((what) => !(this.shells.size && what === this.shellsOf))));
    if (!parts.length) return undefined;
    return `checking ${Math.floor((Date.now() - this.t0) / 1000)} s: ${parts.join('; ')}`;
  }
}

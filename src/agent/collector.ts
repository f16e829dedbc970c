import { STATUS_UNAVAILABLE } from '../cloud/types.js';
import type { DeviceInfo } from '../cloud/types.js';
import { notReadyDeviceInfo, notReadyMessage } from '../platforms/android/inventory/assemble.js';
import { dedupeByUdid } from '../platforms/android/inventory/dedupe.js';
import type { DeviceProber } from '../platforms/android/inventory/probe.js';
import type { Logger } from '../log/logger.js';
import { Limiter } from '../util/limit.js';
import { compareStrings } from '../util/compare.js';

export interface CollectorOptions {
  concurrency: number;
  /**
   * How long a collection waits for its probes. A probe still running then
   * goes on in the background; its device is reported with its last good
   * inventory meanwhile, so no device holds up a report.
   */
  waitMs: number;
  logger: Logger;
  /** Wall clock, for the "since" of messages. */
  now?: () => number;
}

/** Which ready devices get a fresh probe: all, or only these adb serials or udids. */
export type Refresh = 'all' | ReadonlySet<string>;

export interface CollectRequest {
  refresh: Refresh;
  /** Serials not to probe now whatever refresh says (their probes keep failing). */
  hold?: ReadonlySet<string>;
  /** Wait for every probe (each still bounded by its own deadline) instead of waitMs: for a one-shot inventory. */
  waitForAll?: boolean;
}

interface Problem {
  text: string;
  since: number;
  tries: number;
}

/**
 * Turns the adb device list into DeviceInfo records: ready devices are probed
 * (bounded concurrency, one probe per device at a time), the others described
 * by their adb state. A device not probed in this round keeps its last good
 * record, and so does one whose probe failed or is still running.
 */
export class InventoryCollector {
  private readonly last = new Map<string, DeviceInfo>();
  /** udid learnt per adb serial, so a device that goes offline keeps its udid. */
  private readonly udids = new Map<string, string>();
  /** adb serial -> the problem of its last inventory (failed, timed out, or cut short). */
  private readonly problems = new Map<string, Problem>();
  private readonly running = new Map<string, Promise<void>>();
  /** adb serial -> when its last inventory answered (wall clock). */
  private readonly inventoried = new Map<string, number>();
  /** Serials already logged as left out for want of a udid. */
  private readonly leftOut = new Set<string>();
  private readonly limiter: Limiter;
  /** Each probe's outcome, for the planner's backoff: ok is false when it failed, timed out or was cut short. */
  onProbe: ((serial: string, ok: boolean) => void) | undefined;

  constructor(
    private readonly prober: DeviceProber,
    private readonly options: CollectorOptions,
  ) {
    this.limiter = new Limiter(options.concurrency);
  }

  async collect(devices: ReadonlyMap<string, string>, request: CollectRequest = { refresh: 'all' }): Promise<DeviceInfo[]> {
    this.forgetGone(devices);
    const { refresh, hold } = request;
    const waiting: Array<Promise<void>> = [];
    for (const [serial, state] of devices) {
      if (state !== 'device') continue;
      const cached = this.last.get(serial);
      const wanted =
        refresh === 'all' || refresh.has(serial) || (cached !== undefined && refresh.has(cached.udid)) || (!cached && !this.problems.has(serial));
      if (wanted && !hold?.has(serial)) this.startProbe(serial, state);
      const inFlight = this.running.get(serial);
      if (inFlight) waiting.push(inFlight);
    }
    if (waiting.length && request.waitForAll) await Promise.all(waiting);
    else if (waiting.length) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(waiting), new Promise<void>((r) => (timer = setTimeout(r, this.options.waitMs)))]);
      clearTimeout(timer);
    }
    const infos: DeviceInfo[] = [];
    for (const [serial, state] of [...devices].sort(([a], [b]) => compareStrings(a, b))) {
      const info = this.describe(serial, state);
      if (info) infos.push(info);
    }
    return dedupeByUdid(infos);
  }

  /** The adb serial of a udid the collector has seen (a TCP device's udid is not its serial). */
  serialOf(udid: string): string | undefined {
    for (const [serial, known] of this.udids) if (known === udid) return serial;
    return undefined;
  }

  /** Inventories in a row that failed, missed their deadline or were cut short (0 after one that answered). */
  failures(serial: string): number {
    return this.problems.get(serial)?.tries ?? 0;
  }

  /** When the device's last inventory answered (ms, wall clock). */
  inventoriedAt(serial: string): number | undefined {
    return this.inventoried.get(serial);
  }

  private forgetGone(devices: ReadonlyMap<string, string>): void {
    for (const serial of this.last.keys()) {
      if (devices.get(serial) !== this.last.get(serial)?.state) {
        // The connection ended or changed state: per-connection facts are stale.
        this.last.delete(serial);
        this.prober.forget(serial);
      }
    }
    for (const map of [this.udids, this.problems, this.inventoried]) for (const serial of map.keys()) if (!devices.has(serial)) map.delete(serial);
    for (const serial of this.leftOut) if (!devices.has(serial)) this.leftOut.delete(serial);
  }

  /** What the report says of one device, from what is known now. */
  private describe(serial: string, state: string): DeviceInfo | undefined {
    const udid = this.udids.get(serial);
    const problem = this.problems.get(serial);
    const cached = state === 'device' ? this.last.get(serial) : undefined;
    if (cached) {
      if (!problem || cached.message) return cached;
      return { ...cached, status: STATUS_UNAVAILABLE, message: this.advice(problem, this.running.has(serial)) };
    }
    if (udid === undefined && /:\d+$/.test(serial)) {
      // One rule for a device reached over TCP that never said who it is,
      // whatever its state: adb names it HOST:PORT, which is not its udid, so
      // reporting it would leave a phantom in the cloud.
      if (state !== 'device' && !this.leftOut.has(serial)) {
        this.leftOut.add(serial);
        // (A ready one whose probe failed was logged with the failure.)
        this.options.logger.warn(
          { serial, state },
          `network device ${serial} is ${state} and has not said who it is yet; it is left out of reports until it answers its inventory. ${notReadyMessage(state)}`,
        );
      }
      return undefined;
    }
    const info = notReadyDeviceInfo(serial, state, udid);
    if (state === 'device') info.message = problem ? this.advice(problem, this.running.has(serial)) : 'the inventory of the device has not finished yet';
    return info;
  }

  private advice(problem: Problem, stillRunning: boolean): string {
    const since = new Date(problem.since).toISOString();
    const now = stillRunning ? 'its inventory is still running; ' : '';
    return (
      `the device has not answered its adb shell inventory since ${since} (${problem.tries} tries; ${problem.text}); ${now}` +
      'reported with its last known state. Replug or reboot it if this lasts; the agent asks it again less and less often meanwhile.'
    );
  }

  private startProbe(serial: string, state: string): void {
    if (this.running.has(serial)) return;
    const run = this.limiter
      .run(() => this.prober.probe(serial, state))
      .then(
        (info) => {
          this.udids.set(serial, info.udid);
          this.last.set(serial, info);
          this.inventoried.set(serial, (this.options.now ?? Date.now)());
          if (info.message) {
            this.note(serial, info.message, 'the inventory of the device was cut short; the fields it did not report are left out');
            this.onProbe?.(serial, false);
          } else {
            if (this.problems.delete(serial)) this.options.logger.info({ serial }, 'device answers its inventory in full again');
            this.onProbe?.(serial, true);
          }
        },
        (err: unknown) => {
          const text = err instanceof Error ? err.message : String(err);
          const what = this.last.has(serial)
            ? 'inventory of the device failed; its last good inventory is reported'
            : this.udids.has(serial) || !/:\d+$/.test(serial)
              ? 'inventory of the device failed; it is reported with its adb state only'
              : 'inventory of the device failed before it said who it is; it is left out of reports until it answers';
          this.note(serial, text, what);
          this.onProbe?.(serial, false);
        },
      )
      .finally(() => this.running.delete(serial));
    this.running.set(serial, run);
  }

  /** One warning per device and distinct problem, not one per report. */
  private note(serial: string, text: string, what: string): void {
    const now = (this.options.now ?? Date.now)();
    const known = this.problems.get(serial);
    if (known) {
      known.tries++;
      if (known.text === text) return;
      known.text = text;
    } else {
      this.problems.set(serial, { text, since: now, tries: 1 });
    }
    this.options.logger.warn({ serial, err: text }, what);
  }
}

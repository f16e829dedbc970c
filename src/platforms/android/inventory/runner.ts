// The Android source's one inventory runner: at most `concurrency` at once, never two of one device, waited for as a
// report does (within the report wait, on the injected timers). Each answer is applied once to the phone's reading, and
// to REMEMBERED for a network phone; an answer after the report moved on is news for the next one.
import type { DeviceInfo } from '../../../cloud/types.js';
import type { OutcomeNote } from '../../../devices/readings.js';
import type { DeviceRegistry } from '../../../devices/registry.js';
import type { DeviceSnapshot } from '../../../devices/snapshot.js';
import { limited } from '../../../log/limited.js';
import type { Logger } from '../../../log/logger.js';
import type { Clock, Timers } from '../../../util/clock.js';
import { Limiter, waitWhileSettling } from '../../../util/limit.js';
import { isTcpSerial } from '../../../util/tcp-serial.js';
import { asks, type CollectRequest } from '../../source.js';
import type { AdbServerHealth } from '../adb/server-health.js';
import { REMEMBERED } from '../remembered.js';
import type { DeviceProber } from './probe.js';
import { errorText } from '../../../util/error-text.js';

/** The state in which adb says a phone answers an inventory. */
const READY = 'device';

export interface InventoryRunnerOptions {
  prober: DeviceProber;
  registry: DeviceRegistry;
  logger: Logger;
  /** The report's wait runs on its timers (no real timer on the report path). */
  clock: Clock & Timers;
  /** Inventories at once. */
  concurrency: number;
  /**
   * How long a report waits for its inventories: `idleMs` for the next answer while they keep answering, `maxMs` in all;
   * one still running goes on, its device reported with its last good inventory meanwhile.
   */
  reportWait: { idleMs: number; maxMs: number };
  /** The adb server's own round trip, asked when an inventory fails (without it every failure is the phone's). */
  server?: AdbServerHealth;
  /** An inventory the last report stopped waiting for ended, and its device was not yet shown ready or failed: news for a report. */
  news: (key: string) => void;
}

export class InventoryRunner {
  private readonly limiter: Limiter;
  private readonly running = new Map<string, Promise<void>>();
  /** Inventories a report stopped waiting for: their end is news if the device was not shown ready, or failed. */
  private readonly late = new Set<string>();

  constructor(private readonly o: InventoryRunnerOptions) {
    this.limiter = new Limiter(o.concurrency);
  }

  /**
   * Starts the inventories the request plans among `records` and waits for them: all for a one-shot command, else
   * within the report wait. An inventory another report started goes on and is reported when it answers.
   */
  async run(records: readonly DeviceSnapshot[], request: CollectRequest) {
    const asked = records.filter((record) => record.state === READY && asks(request, record));
    const waiting = asked.map((record) => this.running.get(record.key) ?? this.start(record));
    if (waiting.length && request.waitForAll) await Promise.all(waiting);
    else await waitWhileSettling(waiting, this.o.reportWait.idleMs, this.o.reportWait.maxMs, this.o.clock);
    for (const { key } of asked) if (this.running.has(key)) this.late.add(key);
  }

  private start(record: DeviceSnapshot) {
    const { key, serial } = record;
    const { registry, clock } = this.o;
    // News when it ends after the report moved on: a device not yet shown ready, or one shown ready that failed (the
    // report that says so went with its last good inventory; its retry's report came 10 s and a report wait later).
    const wasNews = record.last === undefined || record.failures > 0;
    const connection = registry.readings.asked(key, clock.monotonic());
    let startedAt = clock.monotonic();
    const run = this.limiter
      .run(() => {
        startedAt = clock.monotonic();
        return this.o.prober.probe(serial, record.state, connection, (info) => this.identified(key, connection, info));
      })
      .then(
        async (answer) => {
          const cut = this.o.prober.wasCut(serial);
          // Cut short while the adb server was not answering (asked now): the server's fault; the last good reading stays.
          if (answer.message !== undefined && (await this.o.server?.blame(startedAt))) return;
          const progress = answer.message !== undefined && this.o.prober.madeProgress(serial, connection);
          // A cut inventory keeps the same phone's last values for the fields it did not read (the prober's answer has no
          // undefined field), so the phone never goes out without its model or state.
          const last = registry.get(key)?.last;
          const info = answer.message === undefined || last?.udid !== answer.udid ? answer : { ...last, ...answer };
          const note = registry.readings.answered(key, info, clock.wall(), clock.monotonic(), info.message, connection, progress, cut);
          // Who answers at a network address is remembered past its records (remembered.ts).
          if (isTcpSerial(serial) && registry.isCurrent(key, connection ?? -1)) registry.facet(REMEMBERED).set(key, info.udid);
          if (info.message) this.logFailure(serial, note, info.message, 'the inventory of the device was cut short; the fields it did not report are left out');
          else if (note.recovered) limited(this.o.logger).info('device-inventory-recovered', { serial }, 'device answers its inventory in full again', serial);
        },
        async (err: unknown) => {
          const cut = this.o.prober.wasCut(serial);
          const text = errorText(err);
          if (await this.o.server?.blame(startedAt)) {
            // Not the phone's failure: no count, no "replug it", nothing for recovery to act on.
            this.o.logger.debug({ serial, err: text }, 'inventory of the device failed while the adb server did not answer; not counted against the device');
            return;
          }
          const known = registry.get(key);
          const remembered = registry.facet(REMEMBERED).get(key);
          const what = known?.last
            ? 'inventory of the device failed; its last good inventory is reported'
            : known?.udid !== undefined || !isTcpSerial(serial)
              ? 'inventory of the device failed; it is reported with its adb state only'
              : remembered
                ? `inventory of the device failed before it said who it is on this connection; it is reported as ${remembered}, the phone last identified at this address, with its last inventory`
                : 'inventory of the device failed before it said who it is; it is left out of reports until it answers';
          this.logFailure(serial, registry.readings.failed(key, text, clock.wall(), clock.monotonic(), connection, false, cut), text, what);
        },
      )
      .finally(() => {
        this.running.delete(key);
        registry.readings.settled(key, connection);
        if (this.late.delete(key) && (wasNews || registry.get(key)?.failures)) this.o.news(key);
      });
    this.running.set(key, run);
    return run;
  }

  /**
   * The phone's property dump arrived while its first inventory goes on: it is reported with who it is until the
   * inventory ends, and a report that already went without it hears it as news.
   */
  private identified(key: string, connection: number | undefined, info: DeviceInfo) {
    const { registry, clock } = this.o;
    // Kept past the connection too, so a transport that drops before the answer does not leave the next connection with
    // its serial alone.
    if (!registry.readings.said(key, info, clock.wall(), clock.monotonic(), connection ?? -1)) return;
    if (this.late.has(key)) this.o.news(key);
  }

  /** One warning per device and distinct problem, not one per report. */
  private logFailure(serial: string, note: OutcomeNote, text: string, what: string) {
    if (note.newProblem) limited(this.o.logger).warn('device-inventory-problem', { serial, err: text }, what, serial);
  }
}

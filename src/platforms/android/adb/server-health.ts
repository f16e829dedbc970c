// Whether the adb server itself answers, which decides whom a failed inventory blames: a stopped or hung server makes
// every phone look wedged at once. When an inventory fails, the server's own round trip (host:version, no phone in it)
// is asked under a short deadline; if it does not answer, the failure is not the phone's: the phones keep their last
// state with a note naming the server, and the host reports the fault. While down it is asked every RECHECK_MS. The
// agent never restarts the server: the adb unit owns it, and a restart would cut every phone's session.
import { EventEmitter } from 'node:events';
import { limited } from '../../../log/limited.js';
import type { Logger } from '../../../log/logger.js';
import type { Clock, Timer, Timers } from '../../../util/clock.js';
import type { AdbClient } from './client.js';
import { errorText } from '../../../util/error-text.js';

/** Deadline of the server's own round trip when a failure asks for it: a server answers host:version in milliseconds. */
const SERVER_CHECK_TIMEOUT_MS = 3_000;
/** How often a server found not answering is asked again. */
const SERVER_RECHECK_MS = 2_000;

interface AdbServerHealthOptions {
  /** The server's own round trip. */
  adb: Pick<AdbClient, 'label' | 'version'>;
  /** The recheck of a server found not answering runs on its timers. */
  clock: Clock & Timers;
  logger: Logger;
  recheckMs?: number;
}

interface Down {
  /** Wall ms of the first check that failed. */
  since: number;
  error: string;
}

export class AdbServerHealth extends EventEmitter<{ up: [] }> {
  private downState: Down | undefined;
  /** Monotonic ms the server was last found not answering. */
  private lastDownAt: number | undefined;
  private checking: Promise<boolean> | undefined;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(private readonly o: AdbServerHealthOptions) {
    super();
  }

  /** True while the server's last round trip failed. */
  get down() {
    return this.downState !== undefined;
  }

  /** Asks the server's own round trip now (one question at a time); true when it answered. */
  check() {
    this.checking ??= this.ask().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /**
   * The server's connections ended at once (the device tracker's did: a restart, or something cutting the connection):
   * every inventory running then was cut by it, not by its phone.
   */
  cut() {
    this.lastDownAt = this.o.clock.monotonic();
  }

  /** Whether a failure that began at `sinceMono` is the server's: down now, or found down or cut since (it cut that inventory). */
  async blame(sinceMono: number) {
    const cutSince = () => this.down || (this.lastDownAt !== undefined && this.lastDownAt >= sinceMono);
    if (cutSince()) return true;
    const answered = await this.check();
    // Asked again after the round trip: a restart's end of the tracker may be heard while it runs (a quick restart answers).
    return !answered || cutSince();
  }

  /** What keeps the host from reporting its phones (for /healthz), while the server does not answer. */
  problem() {
    const d = this.downState;
    // The words before the colon are what /healthz says (status/health.ts): no address.
    return (
      d &&
      `adb server not answering: the server at ${this.o.adb.label} has not answered its own round trip (host:version) since ${new Date(d.since).toISOString()} (${d.error}); this is the host's adb server, not the phones`
    );
  }

  /** The note every phone's message carries meanwhile: the cause is the host's, and what is reported is the last known state. */
  deviceNote() {
    const d = this.downState;
    return (
      d &&
      `the adb server on this host has not answered since ${new Date(d.since).toISOString()}, so the device could not be asked; ` +
        'this is its last known state and nothing is known to be wrong with the device itself (do not replug it; see the agent host)'
    );
  }

  stop() {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private async ask() {
    const { adb, clock, logger } = this.o;
    try {
      await adb.version(SERVER_CHECK_TIMEOUT_MS);
    } catch (err) {
      const error = errorText(err);
      this.lastDownAt = clock.monotonic();
      if (!this.downState) {
        this.downState = { since: clock.wall(), error };
        limited(logger).warn(
          'adb-server-not-answering',
          { adb: adb.label, err: error },
          `the adb server at ${adb.label} did not answer its own round trip (host:version) while phones' inventories failed: ` +
            'the server is at fault, not the phones. The phones are reported with their last known state and no phone is counted as failing or recovered; ' +
            'the agent does not restart the server. Check the adb server process on this host (stopped, swapping, hung)',
        );
      }
      this.recheck();
      return false;
    }
    const was = this.downState;
    if (was) {
      this.downState = undefined;
      this.timer?.cancel();
      this.timer = undefined;
      const downSeconds = Math.round((clock.wall() - was.since) / 1000);
      limited(logger).info(
        'adb-server-answering',
        { adb: adb.label, downSeconds },
        `the adb server at ${adb.label} answers again after ${downSeconds} s; the phones are inventoried again`,
      );
      this.emit('up');
    }
    return true;
  }

  private recheck() {
    if (this.stopped || this.timer) return;
    this.timer = this.o.clock.setTimer(
      () => {
        this.timer = undefined;
        if (!this.stopped) void this.check();
      },
      this.o.recheckMs ?? SERVER_RECHECK_MS,
      { unref: true },
    );
  }
}

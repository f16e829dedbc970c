import type { ListingChange } from '../../source.js';
import { every, type Timer } from '../../../util/clock.js';
import type { EndNote } from '../../../util/reconnects.js';
import { Watcher, type WatcherOptions } from '../../watcher.js';
import type { AdbClient, AdbDevice, RawDevice, Tracker } from './client.js';
import { limited } from '../../../log/limited.js';
import { AdbUnreachableError, isRefusal } from './errors.js';

export interface DeviceWatcherOptions extends WatcherOptions {
  /** While the adb server refuses device tracking, its device list is read this often (default 2 s). */
  pollMs?: number;
  /** While polling, tracking is asked for again this often (default 60 s). */
  retryTrackingMs?: number;
}

/** How often the device list is read while tracking is refused: a plug or unplug shows within this. */
const POLL_MS = 2_000;
const RETRY_TRACKING_MS = 60_000;

/**
 * Knows every device the adb server knows: adbkit's tracker for prompt events, plus a full list at start, after the
 * tracker ends and periodically, so a missed event leaves no ghost. Emits 'change', 'connected' and 'resumed'. A
 * tracker that dies right after connecting is retried on a growing wait and summed up in the log; an endpoint that
 * refuses tracking but lists devices (an adb proxy) is polled every pollMs, said once, until it lets tracking in.
 */
export class DeviceWatcher extends Watcher {
  private readonly known = new Map<string, string>();
  private tracker: Tracker | undefined;
  private trackerError: string | undefined;
  /** An end was logged and no reconnect has succeeded since: the next one says tracking resumed. */
  private endSaid = false;
  private everConnected = false;
  /** Duration of the last full device-list round trip to the adb server. */
  lastRoundTripMs: number | undefined;
  /** Set while the adb server refuses tracking: the device list is polled. */
  private pollTimer: Timer | undefined;
  private pollRefusal: string | undefined;
  /** While polling: the last poll was answered (the server is up, if not tracking). */
  private pollOk = false;
  /** The last failure was the server's own (nothing listens, it did not answer, or something else answered): not a cut connection. */
  private unreachable = false;

  constructor(
    private readonly adb: Pick<AdbClient, 'label' | 'listDevices' | 'track'>,
    protected override readonly options: DeviceWatcherOptions,
  ) {
    super(options, 'adb', adb.label);
  }

  protected tick() {
    return this.reconcile();
  }

  /** serial -> adb state, as last seen. */
  get devices(): ReadonlyMap<string, string> {
    return this.known;
  }

  /** True while the agent follows the adb server's devices: the tracker's connection is open, or its polled list answers. */
  get alive() {
    return this.tracker !== undefined || (this.polling && this.pollOk);
  }

  /** Whether the adb server cannot be reached now: neither tracked nor polled, and the last try found no adb answering. */
  get serverUnreachable() {
    return !this.alive && this.unreachable;
  }

  /** True once adb has answered a full device list: from then on, absence means unplugged. */
  get listed() {
    return this.lastRoundTripMs !== undefined;
  }

  /** Whether the device list is polled because the adb server refuses tracking. */
  get polling() {
    return this.pollTimer !== undefined;
  }

  override stop() {
    super.stop();
    this.pollTimer?.cancel();
    this.pollTimer = undefined;
    this.tracker?.removeAllListeners();
    this.tracker?.on('error', () => {});
    this.tracker?.end();
    this.tracker = undefined;
  }

  /** Replaces what is known with the adb server's full list; returns false when adb did not answer. */
  async reconcile() {
    let list: AdbDevice[];
    try {
      const t0 = this.clock.monotonic();
      list = await this.adb.listDevices();
      this.lastRoundTripMs = this.clock.monotonic() - t0;
      this.unreachable = false;
    } catch (err) {
      this.noteError(err);
      this.pollOk = false;
      return false;
    }
    if (!this.running) return true;
    if (this.polling && !this.pollOk) {
      // Polling stands in for the tracker: its first answer is the connection the planner waits for.
      this.pollOk = true;
      this.lastError = undefined;
      this.emit('connected');
      if (this.everConnected) this.emit('resumed');
      this.everConnected = true;
    }
    const listed = new Set(list.map((d) => d.serial));
    this.update([...list.map((d): Listed => [d.serial, d.state]), ...[...this.known.keys()].filter((s) => !listed.has(s)).map((s): Listed => [s, undefined])]);
    return true;
  }

  /** Each serial's state now (undefined: gone), in order: what changed is said in one 'change'. */
  private update(states: Listed[]) {
    const changes: ListingChange[] = [];
    for (const [serial, to] of states) {
      const from = this.known.get(serial);
      if (from === to) continue;
      if (to === undefined) this.known.delete(serial);
      else this.known.set(serial, to);
      changes.push(to === undefined ? { serial, from } : { serial, from, to });
    }
    if (changes.length) this.emit('change', changes);
  }

  protected async connect() {
    if (!this.running) return;
    try {
      const tracker = await this.adb.track();
      if (!this.running) {
        tracker.end();
        return;
      }
      this.tracker = tracker;
      tracker.on('changeSet', (set: { added: RawDevice[]; changed: RawDevice[]; removed: RawDevice[] }) =>
        this.update([...[...set.added, ...set.changed].map((d): Listed => [d.id, String(d.type)]), ...set.removed.map((d): Listed => [d.id, undefined])]),
      );
      // A tracker's error comes with its end, which says it once per episode (a flapping tracker would say it at each cut).
      tracker.on('error', (err: Error) => (this.trackerError = err.message));
      tracker.once('end', () => {
        if (this.tracker !== tracker) return;
        this.tracker = undefined;
        this.ended();
      });
      this.unreachable = false;
      // From polling to tracking is no comeback of the server: its inventories were not cut off.
      const polled = this.stopPolling();
      if (this.lastError || this.endSaid)
        limited(this.options.logger).info('adb-tracking-resumed', { adb: this.label }, 'adb server is reachable again; device tracking resumed');
      this.lastError = undefined;
      this.endSaid = false;
      // The wait before the next reconnect starts over only once this connection has stayed open a while.
      this.reconnects.opened();
      this.emit('connected');
      await this.reconcile();
      if (this.everConnected && !polled) this.emit('resumed');
      this.everConnected = true;
    } catch (err) {
      if (isRefusal(err)) {
        this.startPolling(err.message);
        this.scheduleReconnect(this.options.retryTrackingMs ?? RETRY_TRACKING_MS);
        return;
      }
      this.noteError(err);
      this.scheduleReconnect(this.reconnects.failed());
    }
  }

  /** adb refused tracking but may still list devices: read now (the first report must not wait) and every pollMs. */
  private startPolling(refusal: string) {
    const pollMs = this.options.pollMs ?? POLL_MS;
    this.pollTimer ??= every(this.clock, pollMs, () => void this.reconcile(), { unref: true });
    if (this.pollRefusal !== refusal) {
      const retry = Math.round((this.options.retryTrackingMs ?? RETRY_TRACKING_MS) / 1000);
      limited(this.options.logger).warn(
        'adb-tracking-refused',
        { adb: this.label, answer: refusal },
        `the adb server at ${this.label} refuses device tracking (host:track-devices answered: ${refusal}); ` +
          `reading its device list every ${pollMs / 1000} s instead, so plugs and unplugs show within that; tracking is asked for again every ${retry} s. ` +
          'An adb proxy or tunnel in the way does this: point ADB_SERVER_SOCKET at the adb server itself for prompt changes',
      );
      this.pollRefusal = refusal;
    }
    void this.reconcile();
  }

  /** Stops polling; true when it was polling. */
  private stopPolling() {
    if (this.pollTimer === undefined) return false;
    this.pollTimer.cancel();
    this.pollTimer = undefined;
    this.pollRefusal = undefined;
    this.pollOk = false;
    limited(this.options.logger).info('adb-tracking-accepted', { adb: this.label }, `the adb server at ${this.label} tracks devices again; polling stopped`);
    return true;
  }

  protected logEnd(note: EndNote, ends: number) {
    const { logger, reconnectMaxMs = 10_000, reconcileMs } = this.options;
    const adb = this.label;
    const err = this.trackerError;
    this.trackerError = undefined;
    if (note === 'ended') {
      limited(logger).warn(
        'adb-tracking-ended',
        { adb, err },
        // All the agent knows is that the connection closed: a restarted server and a proxy or tunnel cutting it look the same.
        'adb device tracking ended: the connection to the adb server closed (the server restarted or stopped, or something between the agent and ' +
          'the server cut it), not a fault of the phones; reconnecting, then reconciling the device list',
      );
      this.endSaid = true;
    } else if (note === 'flapping') {
      logger.warn(
        { adb, ends },
        `adb device tracking keeps ending right after it connects (${ends} times in a row): a crash-looping adb server, or something between the agent and adb ` +
          `that cuts idle connections (a tunnel, a proxy), does this. Reconnecting at most every ${Math.round(reconnectMaxMs / 1000)} s; ` +
          `the device list is still read every ${Math.round(reconcileMs / 1000)} s. Check the adb server's log and the path to it`,
      );
    } else if (note === 'summary') {
      logger.warn(
        { adb, ends },
        `adb device tracking ended ${ends} more times soon after connecting; still reconnecting. The adb server at ${adb} or the path to it ` +
          "(a tunnel, a proxy), not the phones: check the adb server's log and the path to it",
      );
    }
  }

  protected override noteError(err: unknown) {
    this.unreachable = err instanceof AdbUnreachableError;
    super.noteError(err);
  }
}

/** A serial and its adb state now; undefined: gone. */
type Listed = [serial: string, state: string | undefined];

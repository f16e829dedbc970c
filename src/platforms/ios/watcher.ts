// Knows every iPhone usbmuxd knows: Listen for prompt events, plus a full ListDevices at start, after Listen ends and
// periodically, so a missed event leaves no ghost. The same shape as the adb device watcher.
import { existsSync } from 'node:fs';
import type { ListingChange } from '../source.js';
import type { Timer } from '../../util/clock.js';
import type { EndNote } from '../../util/reconnects.js';
import { Watcher, type WatcherOptions } from '../watcher.js';
import type { UsbmuxdAddress } from '../../config/usbmuxd-address.js';
import type { MuxDevice, MuxListener } from './usbmuxd-client.js';
import { limited } from '../../log/limited.js';
import { setBounded } from '../../util/bounded-set.js';

// The client (plist parser, about 6 MB RSS) loads only once a usbmuxd socket exists: a host without iPhones pays nothing.
const client = () => import('./usbmuxd-client.js');

const IOS_ATTACHED = 'attached';

export interface IosWatcherOptions extends WatcherOptions {
  address: UsbmuxdAddress;
  stepTimeoutMs: number;
  /** How long phones known before usbmuxd went away are kept (default 10 s), so a usbmuxd restart unplugs none. */
  awayGraceMs?: number;
  /** iPhones were not asked for (ios unset): a missing usbmuxd is said at debug level. */
  quietWhenAbsent?: boolean;
}

export class IosWatcher extends Watcher {
  /** udid -> usbmuxd DeviceID (changes on every replug). */
  private readonly known = new Map<string, MuxDevice>();
  private listener: MuxListener | undefined;
  private absentNoted = false;
  /** Whether usbmuxd has answered a full list since the watcher started: until then its silence says nothing of the phones. */
  answered = false;
  /** Whether the usbmuxd connection is lost (since droppedAt). */
  private lost = false;
  /**
   * Until when (monotonic ms) phones known before a reconnect are kept though not listed: a restarted usbmuxd lists a
   * phone only once its preflight is done (src/device.c device_get_list), a second or more later.
   */
  private settleUntil: number | undefined;
  private settleTimer: Timer | undefined;
  /** The phones kept since a reconnect that usbmuxd has not listed again yet: their DeviceID is not usbmuxd's word now. */
  private readonly unlisted = new Set<string>();
  /** Listen's events counted, and the count at each phone's latest: a list asked for before it is older than that event. */
  private events = 0;
  private readonly lastEvent = new Map<string, number>();

  constructor(protected override readonly options: IosWatcherOptions) {
    super(options, 'usbmuxd', options.address.label);
  }

  /** udid -> 'attached', as adb's watcher maps serial -> state. */
  get devices(): ReadonlyMap<string, string> {
    return new Map([...this.known.keys()].map((udid) => [udid, IOS_ATTACHED]));
  }

  /** The usbmuxd entry of a phone (its DeviceID for Connect). */
  device(udid: string) {
    return this.known.get(udid);
  }

  /** Whether usbmuxd lists the phone now: a restarted usbmuxd numbers devices afresh, so an old DeviceID may be another's. */
  listedNow(udid: string) {
    return this.listener !== undefined && this.known.has(udid) && !this.unlisted.has(udid);
  }

  get alive() {
    return this.listener !== undefined;
  }

  override stop() {
    super.stop();
    this.settleTimer?.cancel();
    this.listener?.stop();
    this.listener = undefined;
  }

  /** Replaces what is known with usbmuxd's full list; false when usbmuxd did not answer. */
  async reconcile() {
    const asked = this.events;
    let list: MuxDevice[];
    try {
      const { listDevices } = await client();
      list = await listDevices(this.options.address, this.options.stepTimeoutMs);
    } catch (err) {
      this.noteError(err);
      return false;
    }
    this.answered = true;
    if (!this.running) return true;
    const changes: ListingChange[] = [];
    const seen = new Set<string>();
    // A phone Listen attached or detached after the list was asked for is as Listen said: the list is older.
    const newer = (udid: string) => (this.lastEvent.get(udid) ?? 0) > asked;
    for (const d of list) {
      seen.add(d.udid);
      if (newer(d.udid)) continue;
      this.unlisted.delete(d.udid);
      if (!this.known.has(d.udid)) changes.push({ serial: d.udid, to: IOS_ATTACHED });
      this.known.set(d.udid, d);
    }
    const settling = this.settleUntil !== undefined && this.clock.monotonic() < this.settleUntil;
    for (const udid of [...this.known.keys()]) {
      if (!seen.has(udid) && !settling && !newer(udid)) {
        this.known.delete(udid);
        this.unlisted.delete(udid);
        changes.push({ serial: udid, from: IOS_ATTACHED });
      }
    }
    if (changes.length) this.emit('change', changes);
    return true;
  }

  /** No socket file: no usbmuxd on this host, hence no iPhones. Said once, not as an error. */
  private socketAbsent() {
    const a = this.options.address;
    if (!('path' in a) || existsSync(a.path)) return false;
    if (!this.absentNoted) {
      this.absentNoted = true;
      this.options.logger[this.options.quietWhenAbsent ? 'debug' : 'info'](
        { usbmuxd: a.label },
        'no usbmuxd socket: iPhones are not reported (install and start usbmuxd to report them; set ios to false to silence this)',
      );
    }
    return true;
  }

  protected async tick() {
    if (!this.running) return;
    if (!this.listener) {
      if (!this.reconnectTimer) await this.connect();
      return;
    }
    await this.reconcile();
  }

  protected async connect() {
    this.reconnectTimer = undefined;
    if (!this.running || this.listener) return;
    if (this.socketAbsent()) {
      // usbmuxd stopped or is restarting: no phone is reachable; looking for its socket is one stat() per backoff step.
      this.dropAllAfterGrace();
      this.scheduleReconnect(this.reconnects.failed());
      return;
    }
    const { MuxListener } = await client();
    if (!this.running || this.listener) return;
    const listener = new MuxListener();
    listener.on('attached', (d: MuxDevice) => {
      this.heard(d.udid);
      const had = this.known.get(d.udid);
      this.known.set(d.udid, d);
      this.unlisted.delete(d.udid);
      if (!had) this.emit('change', [{ serial: d.udid, to: IOS_ATTACHED }]);
    });
    listener.on('detached', (id: number) => {
      for (const [udid, d] of this.known) {
        // An unlisted phone's DeviceID is from before the restart: another phone may have that number now.
        if (d.deviceId !== id || this.unlisted.has(udid)) continue;
        this.heard(udid);
        this.known.delete(udid);
        this.emit('change', [{ serial: udid, from: IOS_ATTACHED }]);
      }
    });
    listener.once('end', (err?: Error) => {
      if (this.listener !== listener) return;
      this.listener = undefined;
      this.lost = this.running;
      this.ended(err);
    });
    try {
      await listener.start(this.options.address, this.options.stepTimeoutMs);
      if (!this.running) {
        listener.stop();
        return;
      }
      this.listener = listener;
      this.emit('connected');
      if (this.lastError || this.absentNoted)
        limited(this.options.logger).info('usbmuxd-resumed', { usbmuxd: this.label }, 'usbmuxd is reachable; iPhone tracking resumed');
      this.lastError = undefined;
      this.absentNoted = false;
      this.reconnects.opened();
      this.lost = false;
      if (this.known.size > 0) {
        for (const udid of this.known.keys()) this.unlisted.add(udid);
        this.settle();
      }
      await this.reconcile();
    } catch (err) {
      listener.stop();
      this.noteError(err);
      this.dropAllAfterGrace();
      this.scheduleReconnect(this.reconnects.failed());
    }
  }

  /** Listen said something of this phone: a list asked for before now is older than it. Bounded: the oldest forgotten first. */
  private heard(udid: string) {
    this.lastEvent.delete(udid);
    setBounded(this.lastEvent, udid, ++this.events, 1024);
  }

  /** After a reconnect with phones known: keep the unlisted ones for the grace, then reconcile once more. */
  private settle() {
    const graceMs = this.options.awayGraceMs ?? 10_000;
    this.settleUntil = this.clock.monotonic() + graceMs;
    this.settleTimer?.cancel();
    this.settleTimer = this.clock.setTimer(
      () => {
        this.settleUntil = undefined;
        if (this.running && this.listener) void this.reconcile();
      },
      graceMs,
      { unref: true },
    );
  }

  /** Phones kept from before usbmuxd went away go once it has been away longer than the grace. */
  private dropAllAfterGrace() {
    if ((this.lost && this.clock.monotonic() - this.droppedAt! < (this.options.awayGraceMs ?? 10_000)) || !this.known.size) return;
    const changes = [...this.known.keys()].map((udid) => ({ serial: udid, from: IOS_ATTACHED }));
    this.known.clear();
    this.unlisted.clear();
    this.emit('change', changes);
  }

  protected logEnd(note: EndNote, ends: number, err: Error | undefined) {
    const { logger, reconnectMaxMs = 10_000 } = this.options;
    if (note === 'ended') {
      limited(logger).warn(
        'usbmuxd-ended',
        { usbmuxd: this.label, err: err?.message },
        'usbmuxd connection ended (usbmuxd restarted or stopped); reconnecting, then reconciling the iPhone list',
      );
    } else if (note === 'flapping') {
      logger.warn(
        { usbmuxd: this.label, ends, err: err?.message },
        `the usbmuxd connection keeps ending right after it opens (${ends} times in a row), as a crash-looping usbmuxd does; ` +
          `reconnecting at most every ${Math.round(reconnectMaxMs / 1000)} s. Check usbmuxd's log (journalctl -u usbmuxd)`,
      );
    } else if (note === 'summary') {
      logger.warn({ usbmuxd: this.label, ends }, `the usbmuxd connection ended ${ends} more times soon after opening; still reconnecting`);
    }
  }
}

// What the adb and usbmuxd watchers share: a long-lived connection to the service that lists the phones, connected
// again on a growing wait (util/reconnects.ts), and a full listing every reconcileMs besides the service's events, so a
// missed event leaves no ghost.
import { EventEmitter } from 'node:events';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import { every, systemClock, type Clock, type Timer, type Timers } from '../util/clock.js';
import { Reconnects, type EndNote, type ReconnectPolicy } from '../util/reconnects.js';
import { errorText } from '../util/error-text.js';

export interface WatcherOptions extends ReconnectPolicy {
  reconcileMs: number;
  logger: Logger;
  /** The reconciliation, the reconnects and the watcher's own waits run on its timers (default the system's). */
  clock?: Clock & Timers;
}

export abstract class Watcher extends EventEmitter {
  protected readonly clock: Clock & Timers;
  protected readonly reconnects: Reconnects;
  protected running = false;
  lastError: string | undefined;
  /** Monotonic ms the connection to the service last ended while running (a restart), undefined while it never has. */
  droppedAt: number | undefined;
  protected reconnectTimer: Timer | undefined;
  private reconcileTimer: Timer | undefined;

  constructor(
    protected readonly options: WatcherOptions,
    /** The service, as the log lines name it (their field and the key of the line said once). */
    private readonly service: 'adb' | 'usbmuxd',
    /** The service's address, for log lines. */
    protected readonly label: string,
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.reconnects = new Reconnects(options, this.clock);
  }

  protected abstract connect(): Promise<void>;
  /** What runs every reconcileMs. */
  protected abstract tick(): Promise<unknown>;
  /** Says that the connection ended: 'ended' the first time, then 'flapping' and a 'summary' now and then (util/reconnects.ts). */
  protected abstract logEnd(note: EndNote, ends: number, err?: Error): void;

  async start() {
    this.running = true;
    this.reconcileTimer = every(this.clock, this.options.reconcileMs, () => void this.tick(), { unref: true });
    await this.connect();
  }

  stop() {
    this.running = false;
    this.reconcileTimer?.cancel();
    this.reconnectTimer?.cancel();
  }

  /** The connection ended while running: said ('ended', with its monotonic ms), and connected again after the wait. */
  protected ended(err?: Error) {
    if (!this.running) return;
    this.droppedAt = this.clock.monotonic();
    this.emit('ended', this.droppedAt);
    const { delayMs, note, ends } = this.reconnects.ended();
    this.logEnd(note, ends, err);
    this.scheduleReconnect(delayMs);
  }

  protected scheduleReconnect(delayMs: number) {
    if (!this.running) return;
    this.reconnectTimer?.cancel();
    this.reconnectTimer = this.clock.setTimer(() => void this.connect(), Math.round(delayMs));
  }

  /** One line per distinct problem, not one per reconnect attempt. */
  protected noteError(err: unknown) {
    const text = errorText(err);
    if (text !== this.lastError) limited(this.options.logger).warn(`${this.service}-unreachable`, { [this.service]: this.label }, text);
    this.lastError = text;
  }
}

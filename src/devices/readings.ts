import { EventEmitter } from 'node:events';
import type { DeviceInfo } from '../cloud/types.js';
import { keyParts, type Platform } from './record.js';

/** The last inventory problem of a device, for its message and the logs. */
export interface InventoryFailure {
  text: string;
  /** Wall clock (ms) of the first failure in the current run of failures. */
  since: number;
  /** Monotonic clock (ms) of the latest failure: the planner's backoff counts from it. */
  at: number;
  /** Monotonic clock (ms) of the first failure of the run: recovery's kicks count within a run. */
  first: number;
}

/**
 * What a device said of itself and how asking it went, by its record's key.
 * The udid lasts as long as the record; the rest is of the record's current
 * connection and starts afresh with the next one.
 */
export interface Reading {
  /** The udid the device gave, once it has answered an inventory on some connection. */
  udid?: string;
  /** The last good inventory of this connection. */
  last?: DeviceInfo;
  /** Wall clock (ms) when the last inventory answered. */
  inventoriedAt?: number;
  /**
   * Inventories in a row that failed, timed out or were cut short. The one
   * count of the agent: the planner's backoff, the health rule, `up` and the
   * recovery kicks all read it. Reset by an inventory that answers in full,
   * and by a new connection (a new state).
   */
  failures: number;
  failure?: InventoryFailure;
  /** A condition the device answered with that is not a failure of it (an iPhone that does not trust this host). */
  notice?: string;
  /** Monotonic clock (ms) when the latest inventory of the device started. */
  askedAt?: number;
  /** Whether an inventory of the device is running now. */
  probing: boolean;
}

/** What one finished inventory did to a reading's failure count. */
export interface OutcomeNote {
  /** The device answered in full after failing before. */
  recovered: boolean;
  /** The failure is new, or its text changed: worth one log line. */
  newProblem: boolean;
}

const NOTHING: OutcomeNote = { recovered: false, newProblem: false };

interface Entry {
  connection: number;
  reading: Reading;
}

/**
 * The readings of the devices: where an inventory's outcome is applied, once,
 * by the source that asked (the Android inventory runner, the iOS source).
 * The registry opens a key's reading when it lists the device or starts a new
 * connection of it, and closes it when the device goes; an outcome counts only
 * for the connection that asked (an answer from before a replug says nothing
 * of the new one).
 *
 * Emits 'outcome' after an inventory's outcome is applied, so that whoever
 * plans the next report can look again (a failed inventory plans a retry),
 * and 'answered' with the key when an inventory of its current connection
 * answered (in full or cut short), so that the features that follow a
 * device's readings over time hear of each once (the wiring hands it to them:
 * src/agent/build.ts), and the platform that wrote it names none.
 */
export class Readings extends EventEmitter<{ outcome: []; answered: [key: string] }> {
  private readonly entries = new Map<string, Entry>();
  private readonly udidIndex = new Map<string, Set<string>>();

  /** The reading of a record's key, while the record lasts. */
  of(key: string): Readonly<Reading> | undefined {
    return this.entries.get(key)?.reading;
  }

  /** The keys whose device gave this udid (a phone on USB and over TCP has two; so do phones that share a serial). */
  keysOf(udid: string): readonly string[] {
    return [...(this.udidIndex.get(udid) ?? [])];
  }

  /**
   * The registry listed the device, or started a new connection of it: a
   * fresh reading, nothing carried over but the udid (an offline device is
   * still the same phone), so a replugged wedged phone gets a fresh start.
   */
  open(key: string, connection: number): void {
    const udid = this.entries.get(key)?.reading.udid;
    this.entries.set(key, { connection, reading: { ...(udid === undefined ? {} : { udid }), failures: 0, probing: false } });
  }

  /** The device's record went: its reading and its udid with it. */
  close(key: string): void {
    const udid = this.entries.get(key)?.reading.udid;
    if (udid !== undefined) this.unindex(key, udid);
    this.entries.delete(key);
  }

  /**
   * An inventory of the device started (monotonic ms). Returns the
   * connection it asks: its outcome is applied only while that connection
   * lasts.
   */
  asked(key: string, now: number): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    entry.reading.askedAt = now;
    entry.reading.probing = true;
    return entry.connection;
  }

  /** The inventory in flight ended (whatever its outcome). */
  settled(key: string, connection?: number): void {
    const reading = this.current(key, connection);
    if (reading) reading.probing = false;
  }

  /**
   * An inventory answered. A whole one resets the failure count; one cut
   * short (partial) is kept as the last reading and counts as a failure.
   */
  answered(key: string, info: DeviceInfo, wallNow: number, now: number, partial?: string, connection?: number, progress = false): OutcomeNote {
    const reading = this.current(key, connection);
    if (!reading) return NOTHING;
    reading.probing = false;
    this.identify(key, info.udid);
    reading.last = info;
    reading.inventoriedAt = wallNow;
    this.emit('answered', key);
    if (partial !== undefined) return this.failed(key, partial, wallNow, now, connection, progress);
    const recovered = reading.failures > 0 || reading.notice !== undefined;
    reading.failures = 0;
    reading.failure = undefined;
    reading.notice = undefined;
    this.emit('outcome');
    return { recovered, newProblem: false };
  }

  /**
   * An inventory failed or missed its deadline. One that still made progress
   * (a slow device answering more of its sections each time) counts as one
   * failure, not one more: it is asked again soon, and the health and
   * recovery rules, which count failures in a row, leave it alone.
   */
  failed(key: string, text: string, wallNow: number, now: number, connection?: number, progress = false): OutcomeNote {
    const reading = this.current(key, connection);
    if (!reading) return NOTHING;
    reading.probing = false;
    reading.failures = progress ? 1 : reading.failures + 1;
    const newProblem = reading.failure?.text !== text;
    reading.failure = { text, since: reading.failure?.since ?? wallNow, at: now, first: reading.failure?.first ?? now };
    this.emit('outcome');
    return { recovered: false, newProblem };
  }

  /** The device answered with a condition that is not a failure (see Reading.notice); true when it is new. */
  noticed(key: string, text: string): boolean {
    const reading = this.entries.get(key)?.reading;
    if (!reading) return false;
    reading.probing = false;
    if (reading.notice === text) return false;
    reading.notice = text;
    return true;
  }

  /**
   * The platform's service went away and came back: the inventories it cut
   * off say nothing about the devices, so their failures are forgiven.
   */
  forgive(platform: Platform): void {
    for (const [key, { reading }] of this.entries) {
      if (keyParts(key).platform !== platform) continue;
      reading.failures = 0;
      reading.failure = undefined;
    }
  }

  /** The device said who it is: with an inventory's answer, or first (an Android phone's property dump, before its inventory ends). */
  identify(key: string, udid: string): void {
    const reading = this.entries.get(key)?.reading;
    if (!reading || reading.udid === udid) return;
    if (reading.udid !== undefined) this.unindex(key, reading.udid);
    reading.udid = udid;
    let keys = this.udidIndex.get(udid);
    if (!keys) this.udidIndex.set(udid, (keys = new Set()));
    keys.add(key);
  }

  /** The reading, while the connection (when given) is still the one that asked. */
  private current(key: string, connection: number | undefined): Reading | undefined {
    const entry = this.entries.get(key);
    return entry && (connection === undefined || entry.connection === connection) ? entry.reading : undefined;
  }

  private unindex(key: string, udid: string): void {
    const keys = this.udidIndex.get(udid);
    keys?.delete(key);
    if (keys?.size === 0) this.udidIndex.delete(udid);
  }
}

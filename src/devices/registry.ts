import { EventEmitter } from 'node:events';
import type { DeviceInfo } from '../cloud/types.js';
import { FacetStore, type Facet, type FacetKey } from './facet.js';
import { PresenceLedger } from './presence.js';
import { recordKey, type DeviceRecord, type DeviceSnapshot, type Platform, type UsbPlace } from './record.js';

/** What one finished inventory did to a record's failure count. */
export interface OutcomeNote {
  /** The device answered in full after failing before. */
  recovered: boolean;
  /** The failure is new, or its text changed: worth one log line. */
  newProblem: boolean;
}

/**
 * Identity and lifecycle of the devices: a record per device connection,
 * with a udid index and the one failure count. Sources sync their listing
 * into it and note each inventory's outcome; the planner, health, recovery,
 * metrics, `list` and `doctor` read it. A record goes when its source stops
 * listing the device, and with it everything known about that connection.
 * Each feature keeps its own state of a device in a facet (facet()), which
 * the registry drops with the connection or the record, or keeps by the
 * device's stable key, as the facet's key says.
 *
 * Emits 'outcome' after an inventory's outcome is noted, so that whoever
 * plans the next report can look again (a failed inventory plans a retry),
 * and 'answered' with the record when an inventory of its current
 * connection answered (in full or cut short), so that the features that
 * follow a device's readings over time hear of each once (the wiring hands
 * it to them: src/agent/build.ts), and the platform that wrote it names none.
 */
export class DeviceRegistry extends EventEmitter<{ outcome: []; answered: [device: DeviceSnapshot] }> {
  private readonly records = new Map<string, DeviceRecord>();
  private readonly facets = new Map<string, FacetStore<unknown>>();
  private readonly udidIndex = new Map<string, Set<string>>();
  private seq = 0;
  /**
   * The devices owed the cloud while nothing reads them (presence.ts): kept
   * here, beside the facets, so that the platforms and the features that
   * know of such a device write to the same ledger the report asks.
   */
  readonly presence = new PresenceLedger();

  /** Counts state changes: a record with a larger changedSeq changed after the counter was read. */
  get changeCounter(): number {
    return this.seq;
  }

  /**
   * A source's whole listing (serial -> state). Records it no longer lists
   * are dropped; a record whose state changed starts a new connection:
   * nothing cached and no failure carried over. Returns the keys that
   * changed state or appeared, and the records that went.
   */
  sync(platform: Platform, listing: ReadonlyMap<string, string>): { changed: string[]; gone: DeviceSnapshot[] } {
    const changed: string[] = [];
    const gone: DeviceSnapshot[] = [];
    for (const [key, record] of this.records) {
      if (record.platform !== platform || listing.has(record.serial)) continue;
      this.drop(key);
      gone.push(record);
    }
    for (const [serial, state] of listing) {
      const key = recordKey(platform, serial);
      const record = this.records.get(key);
      if (record === undefined) {
        this.records.set(key, newRecord(key, platform, serial, state, ++this.seq));
        changed.push(key);
      } else if (record.state !== state) {
        newConnection(record, state, ++this.seq);
        for (const store of this.facets.values()) if (store.keep === 'connection') store.delete(key);
        changed.push(key);
      }
    }
    return { changed, gone };
  }

  get(key: string): DeviceSnapshot | undefined {
    return this.records.get(key);
  }

  /**
   * A feature's state of each device (see devices/facet.ts), by the
   * device's stable key: the same store for every caller with this key.
   */
  facet<T>(key: FacetKey<T>): Facet<T> {
    let store = this.facets.get(key.name);
    if (!store) this.facets.set(key.name, (store = new FacetStore<unknown>(key.keep, (k) => this.records.has(k))));
    else if (store.keep !== key.keep) throw new Error(`facet ${key.name} is kept by ${store.keep}, not ${key.keep}`);
    return store as FacetStore<T>;
  }

  /** Whether the record is still on this connection (an answer from before a replug says nothing of the new one). */
  isCurrent(key: string, connection: number): boolean {
    return this.current(key, connection) !== undefined;
  }

  /** The records of a platform's serial. */
  find(platform: Platform, serial: string): DeviceSnapshot | undefined {
    return this.records.get(recordKey(platform, serial));
  }

  /** Every record that carries this udid (a phone on USB and over TCP has two; so do phones that share a serial). */
  byUdid(udid: string): DeviceSnapshot[] {
    const keys = this.udidIndex.get(udid);
    if (!keys) return [];
    return [...keys].map((k) => this.records.get(k)).filter((r): r is DeviceRecord => r !== undefined);
  }

  /** Every record, or a platform's, in the order they were first listed. */
  list(platform?: Platform): DeviceSnapshot[] {
    const all = [...this.records.values()];
    return platform === undefined ? all : all.filter((r) => r.platform === platform);
  }

  get size(): number {
    return this.records.size;
  }

  /**
   * An inventory of the device started (monotonic ms). Returns the
   * connection it asks: its outcome is noted only while that connection
   * lasts (an answer from before a replug says nothing of the new one).
   */
  asked(key: string, now: number): number | undefined {
    const record = this.records.get(key);
    if (!record) return undefined;
    record.askedAt = now;
    record.probing = true;
    return record.connection;
  }

  /** The inventory in flight ended (whatever its outcome). */
  settled(key: string, connection?: number): void {
    const record = this.current(key, connection);
    if (record) record.probing = false;
  }

  /**
   * An inventory answered. A whole one resets the failure count; one cut
   * short (partial) is kept as the last reading and counts as a failure.
   */
  answered(key: string, info: DeviceInfo, wallNow: number, now: number, partial?: string, connection?: number, progress = false): OutcomeNote {
    const record = this.current(key, connection);
    if (!record) return { recovered: false, newProblem: false };
    record.probing = false;
    this.setUdid(record, info.udid);
    record.last = info;
    record.inventoriedAt = wallNow;
    this.emit('answered', record);
    if (partial !== undefined) return this.failed(key, partial, wallNow, now, connection, progress);
    const recovered = record.failures > 0 || record.notice !== undefined;
    record.failures = 0;
    record.failure = undefined;
    record.notice = undefined;
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
    const record = this.current(key, connection);
    if (!record) return { recovered: false, newProblem: false };
    record.probing = false;
    record.failures = progress ? 1 : record.failures + 1;
    const newProblem = record.failure?.text !== text;
    record.failure = { text, since: record.failure?.since ?? wallNow, at: now, first: record.failure?.first ?? now };
    this.emit('outcome');
    return { recovered: false, newProblem };
  }

  /** The device answered with a condition that is not a failure (see DeviceRecord.notice); true when it is new. */
  noticed(key: string, text: string): boolean {
    const record = this.records.get(key);
    if (!record) return false;
    record.probing = false;
    if (record.notice === text) return false;
    record.notice = text;
    return true;
  }

  /**
   * The platform's service went away and came back: the inventories it cut
   * off say nothing about the devices, so their failures are forgiven.
   */
  forgive(platform: Platform): void {
    for (const record of this.records.values()) {
      if (record.platform !== platform) continue;
      record.failures = 0;
      record.failure = undefined;
    }
  }

  /** The device said who it is without a full inventory (an iPhone's usbmuxd listing). */
  identify(key: string, udid: string): void {
    const record = this.records.get(key);
    if (record) this.setUdid(record, udid);
  }

  setUsb(platform: Platform, places: ReadonlyMap<string, UsbPlace>): void {
    for (const record of this.records.values()) if (record.platform === platform) record.usb = places.get(record.serial);
  }

  /** The record, while the connection (when given) is still the one it has. */
  private current(key: string, connection: number | undefined): DeviceRecord | undefined {
    const record = this.records.get(key);
    return record && (connection === undefined || record.connection === connection) ? record : undefined;
  }

  private setUdid(record: DeviceRecord, udid: string): void {
    if (record.udid === udid) return;
    if (record.udid !== undefined) this.unindex(record.key, record.udid);
    record.udid = udid;
    let keys = this.udidIndex.get(udid);
    if (!keys) this.udidIndex.set(udid, (keys = new Set()));
    keys.add(record.key);
  }

  private drop(key: string): void {
    const record = this.records.get(key);
    if (!record) return;
    if (record.udid !== undefined) this.unindex(key, record.udid);
    this.records.delete(key);
    for (const store of this.facets.values()) if (store.keep !== 'device') store.delete(key);
  }

  private unindex(key: string, udid: string): void {
    const keys = this.udidIndex.get(udid);
    keys?.delete(key);
    if (keys?.size === 0) this.udidIndex.delete(udid);
  }
}

function newRecord(key: string, platform: Platform, serial: string, state: string, seq: number): DeviceRecord {
  return { key, platform, serial, state, changedSeq: seq, connection: 0, failures: 0, probing: false };
}

/**
 * A new state is a new connection: per-connection facts are stale (and the
 * `connection` facets go, sync()), and a replugged wedged phone gets a fresh
 * start. The udid stays (an offline device is still the same phone), and so
 * do the `record` facets (health's problems, which stand until the device
 * answers again) and the `device` facets (recovery's limits span reconnects).
 */
function newConnection(record: DeviceRecord, state: string, seq: number): void {
  record.state = state;
  record.changedSeq = seq;
  record.connection++;
  record.probing = false;
  record.askedAt = undefined;
  record.last = undefined;
  record.failures = 0;
  record.failure = undefined;
  record.notice = undefined;
}

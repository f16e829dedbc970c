import { FacetStore, type Facet, type FacetKey } from './facet.js';
import { PresenceLedger } from './presence.js';
import { Readings } from './readings.js';
import { recordKey, type DeviceRecord, type Platform, type UsbPlace } from './record.js';
import type { DeviceSnapshot } from './snapshot.js';
import { Timeline } from './timeline.js';

/**
 * Identity and lifecycle of the devices: a record per device connection, as its source lists it, gone when its source
 * stops listing the device. What a device said of itself is its reading, which the registry opens and closes with the
 * record's connection; readers get both as one snapshot. A feature keeps its state of a device in a facet, dropped as
 * the facet's key says.
 */
export class DeviceRegistry {
  private readonly records = new Map<string, DeviceRecord>();
  private readonly facets = new Map<string, FacetStore<unknown>>();
  private seq = 0;
  /** The devices owed the cloud while nothing reads them: here, so platforms and features write the ledger the report asks. */
  readonly presence = new PresenceLedger();
  /** What each device said of itself, by its record's key (readings.ts). */
  readonly readings = new Readings();
  /** What is known of the phones and the host beyond their records and readings (timeline.ts). */
  readonly timeline = new Timeline();

  constructor() {
    // The readings' word that inventories fail together is the host's fact.
    this.readings.on('starved', (since, at) => this.timeline.starving(since, at));
  }

  /** Counts state changes: a record with a larger changedSeq changed after the counter was read. */
  get changeCounter() {
    return this.seq;
  }

  /**
   * A source's whole listing (serial -> state). Records it no longer lists are dropped; a changed state starts a new
   * connection. Returns the keys that changed state or appeared, and the records that went.
   */
  sync(platform: Platform, listing: ReadonlyMap<string, string>) {
    const changed: string[] = [];
    const gone: DeviceSnapshot[] = [];
    for (const [key, record] of this.records) {
      if (record.platform !== platform || listing.has(record.serial)) continue;
      gone.push(this.view(record));
      this.drop(key);
    }
    for (const [serial, state] of listing) {
      const key = recordKey(platform, serial);
      const record = this.records.get(key);
      if (record === undefined) {
        this.records.set(key, { key, platform, serial, state, changedSeq: ++this.seq, connection: 0 });
        this.readings.open(key, 0);
        changed.push(key);
      } else if (record.state !== state) {
        // A new state is a new connection: the reading and the `connection` facets start afresh, so a replugged wedged
        // phone gets a fresh start. The udid stays, and so do the `record` and `device` facets.
        record.state = state;
        record.changedSeq = ++this.seq;
        record.connection++;
        this.readings.open(key, record.connection);
        for (const store of this.facets.values()) if (store.keep === 'connection') store.delete(key);
        changed.push(key);
      }
    }
    return { changed, gone };
  }

  get(key: string) {
    const record = this.records.get(key);
    return record && this.view(record);
  }

  /** A feature's state of each device (see devices/facet.ts), by the device's stable key: the same store for every caller with this key. */
  facet<T>(key: FacetKey<T>): Facet<T> {
    let store = this.facets.get(key.name);
    if (!store) this.facets.set(key.name, (store = new FacetStore<unknown>(key.keep, (k) => this.records.has(k))));
    else if (store.keep !== key.keep) throw new Error(`facet ${key.name} is kept by ${store.keep}, not ${key.keep}`);
    return store as FacetStore<T>;
  }

  /** Whether the record is still on this connection (an answer from before a replug says nothing of the new one). */
  isCurrent(key: string, connection: number) {
    return this.records.get(key)?.connection === connection;
  }

  /** The records of a platform's serial. */
  find(platform: Platform, serial: string) {
    return this.get(recordKey(platform, serial));
  }

  /** The phone's udid at a key: as its record knows it, else as the last answer there gave it (a new connection not read yet). */
  udidAt(key: string) {
    return this.get(key)?.udid ?? this.readings.lastAnswer(key)?.info.udid;
  }

  /** Every record that carries this udid (a phone on USB and over TCP has two; so do phones that share a serial). */
  byUdid(udid: string) {
    return this.readings.keysOf(udid).flatMap((k) => this.get(k) ?? []);
  }

  /** Every record, or a platform's, in the order they were first listed. */
  list(platform?: Platform) {
    const out: DeviceSnapshot[] = [];
    for (const record of this.records.values()) if (platform === undefined || record.platform === platform) out.push(this.view(record));
    return out;
  }

  get size() {
    return this.records.size;
  }

  setUsb(platform: Platform, places: ReadonlyMap<string, UsbPlace>) {
    for (const record of this.records.values()) if (record.platform === platform) record.usb = places.get(record.serial);
  }

  private drop(key: string) {
    const record = this.records.get(key);
    if (!record) return;
    this.records.delete(key);
    this.readings.close(key);
    for (const store of this.facets.values()) if (store.keep !== 'device') store.delete(key);
  }

  /** The record with its reading, as they stand now (sync opens a reading with every record; the default only satisfies the type). */
  private view(record: DeviceRecord): DeviceSnapshot {
    return { ...record, ...(this.readings.of(record.key) ?? { failures: 0, probing: false }) };
  }
}

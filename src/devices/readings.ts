import { EventEmitter } from 'node:events';
import type { DeviceInfo } from '../cloud/types.js';
import { keyParts, type Platform } from './record.js';
import { starved, TOGETHER_MS } from './starved.js';

/** The last inventory problem of a device, for its message and the logs. */
export interface InventoryFailure {
  text: string;
  /** Wall clock (ms) of the first failure in the current run of failures. */
  since: number;
  /** Monotonic clock (ms) of the latest failure: the planner's backoff counts from it. */
  at: number;
  /** Monotonic clock (ms) of the first failure of the run: recovery's kicks count within a run. */
  first: number;
  /** The latest ended because the device's connection closed under it: seen as it happened, not a hang found late. */
  cut?: true;
}

/** What a device said of itself and how asking it went. The udid lasts with the record; the rest is per connection. */
export interface Reading {
  /** The udid the device gave, once it has answered an inventory on some connection. */
  udid?: string;
  /** The last inventory this connection answered (the one kept: `Readings.inventoryOf`), whole or cut short. */
  last?: DeviceInfo;
  /** Wall clock (ms) when that inventory answered. */
  inventoriedAt?: number;
  /**
   * Inventories in a row that failed, timed out or were cut short: the one count the backoff, the health rule, `up` and
   * recovery all read. Reset by a whole answer and by a new connection.
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

/**
 * A phone's last inventory, kept once, past its connection and record, so that whoever still reports a phone nothing
 * reads now names it and the report reads its inventory here; or, until an answer, what a first property dump said.
 */
export interface KeptInventory {
  info: DeviceInfo;
  /** Wall and monotonic ms when it was said. */
  wallAt: number;
  at: number;
  /** What a first inventory's property dump said before it ended (issue 42), not an answer. */
  props?: true;
}

/** A kept inventory with where it was said: the record (its life) and the connection. */
interface Said extends KeptInventory {
  life: number;
  connection: number;
}

/** How many keys whose record went are kept (a lab's worth), least recently said dropped first; a listed key never is. */
const KEPT_PAST_RECORDS = 512;

interface Entry {
  /** Which record of the key this is: a key listed again after it went is a new life. */
  life: number;
  connection: number;
  /** What the reading holds itself: its answer is the kept inventory's (of() shows it). */
  reading: Omit<Reading, 'last' | 'inventoriedAt'>;
}

/**
 * The readings of the devices, where the source that asked applies an inventory's outcome, once, and only for the
 * connection that asked (an answer from before a replug says nothing of the new one). Emits 'outcome' after each
 * outcome, so the planner can look again, and 'answered' with the key when the current connection answered, so the
 * features that follow readings hear of each once.
 */
export class Readings extends EventEmitter<{ outcome: [key: string]; answered: [key: string]; starved: [since: number | undefined, at: number] }> {
  private readonly entries = new Map<string, Entry>();
  private readonly udidIndex = new Map<string, Set<string>>();
  /** The one store of the phones' last inventories: each key's last answer, in the order said. */
  private readonly answers = new Map<string, Said>();
  /** A first inventory's property dump, by key, while its record lasts and no answer came since. */
  private readonly dumps = new Map<string, Said>();
  private lives = 0;
  /** Since when (monotonic ms) inventories have been failing together, the host's fault; undefined while they are not. */
  private starvedSince: number | undefined;

  /** The reading of a record's key, while the record lasts, with the inventory its connection answered. */
  of(key: string): Readonly<Reading> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const answer = this.answers.get(key);
    return answer && ofEntry(answer, entry) ? { ...entry.reading, last: answer.info, inventoriedAt: answer.wallAt } : entry.reading;
  }

  /** What the property dump of this connection's first inventory said, while no answer of it has come. */
  early(key: string): KeptInventory | undefined {
    const entry = this.entries.get(key);
    const dump = this.dumps.get(key);
    return entry && dump && ofEntry(dump, entry) ? dump : undefined;
  }

  /** The last inventory of the record past its connections: its last answer, or a property dump said since. */
  earlier(key: string): KeptInventory | undefined {
    const life = this.entries.get(key)?.life;
    const answer = this.answers.get(key);
    const mine = answer?.life === life ? answer : undefined;
    // A dump, said since the last answer, is the record's word when it names another phone.
    const dump = this.dumps.get(key);
    return dump && dump.info.udid !== mine?.info.udid ? dump : mine;
  }

  /** The last answer given at this key, whatever record or connection gave it. */
  lastAnswer(key: string): KeptInventory | undefined {
    return this.answers.get(key);
  }

  /** The last inventory of this udid: its record's (`key`), else the last answer at that key, else any key's with it. */
  inventoryOf(udid: string, key?: string) {
    const mine = (k: KeptInventory | undefined) => (k?.info.udid === udid ? k.info : undefined);
    const atKey = key === undefined ? undefined : (mine(this.earlier(key)) ?? mine(this.lastAnswer(key)));
    return atKey ?? [...this.answers.values()].findLast((k) => k.info.udid === udid)?.info;
  }

  /** The keys whose device gave this udid (a phone on USB and over TCP has two; so do phones that share a serial). */
  keysOf(udid: string): readonly string[] {
    return [...(this.udidIndex.get(udid) ?? [])];
  }

  /** A new connection: a fresh reading, only the udid carried over, so a replugged wedged phone gets a fresh start. */
  open(key: string, connection: number) {
    const was = this.entries.get(key);
    const udid = was?.reading.udid;
    const life = was?.life ?? ++this.lives;
    this.entries.set(key, { life, connection, reading: { ...(udid === undefined ? {} : { udid }), failures: 0, probing: false } });
  }

  /** The device's record went: its reading and its udid with it (what it said is kept: `inventoryOf`). */
  close(key: string) {
    const udid = this.entries.get(key)?.reading.udid;
    if (udid !== undefined) this.unindex(key, udid);
    this.entries.delete(key);
    this.dumps.delete(key);
    this.prune();
  }

  /** An inventory started (monotonic ms); returns the connection whose outcome it may apply. */
  asked(key: string, now: number) {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    entry.reading.askedAt = now;
    entry.reading.probing = true;
    return entry.connection;
  }

  /** The inventory in flight ended (whatever its outcome). */
  settled(key: string, connection?: number) {
    const reading = this.current(key, connection);
    if (reading) reading.probing = false;
  }

  /** An inventory answered: a whole one resets the failure count; one cut short is kept and counts as a failure. */
  answered(key: string, info: DeviceInfo, wallNow: number, now: number, partial?: string, connection?: number, progress = false, cut = false) {
    const reading = this.current(key, connection);
    if (!reading) return NOTHING;
    reading.probing = false;
    this.identify(key, info.udid);
    this.keep(key, { info, wallAt: wallNow, at: now });
    this.emit('answered', key);
    if (partial !== undefined) return this.failed(key, partial, wallNow, now, connection, progress, cut);
    const recovered = reading.failures > 0 || reading.notice !== undefined;
    reading.failures = 0;
    reading.failure = undefined;
    reading.notice = undefined;
    if (this.starvedSince !== undefined) this.judgeHost(now);
    this.emit('outcome', key);
    return { recovered, newProblem: false };
  }

  /**
   * An inventory failed or missed its deadline. One that still made progress counts as one failure, not one more, so
   * the rules that count failures in a row leave a slow device alone.
   */
  failed(key: string, text: string, wallNow: number, now: number, connection?: number, progress = false, cut = false) {
    const reading = this.current(key, connection);
    if (!reading) return NOTHING;
    reading.probing = false;
    reading.failures = progress ? 1 : reading.failures + 1;
    const newProblem = reading.failure?.text !== text;
    reading.failure = { text, since: reading.failure?.since ?? wallNow, at: now, first: reading.failure?.first ?? now, ...(cut && { cut: true as const }) };
    this.judgeHost(now);
    this.emit('outcome', key);
    return { recovered: false, newProblem };
  }

  /** Many phones failing together (starved.ts): the host's word, said when it starts and ends; an answer may end it. */
  private judgeHost(now: number) {
    let failing = 0;
    let asked = 0;
    let since = Infinity;
    for (const { reading } of this.entries.values()) {
      if (reading.askedAt !== undefined && reading.askedAt >= now - TOGETHER_MS) asked++;
      const f = reading.failure;
      if (reading.failures === 0 || f === undefined || f.at < now - TOGETHER_MS) continue;
      failing++;
      since = Math.min(since, f.at);
    }
    const from = starved(failing, asked) ? since : undefined;
    if (from !== this.starvedSince) {
      this.starvedSince = from;
      this.emit('starved', from, now);
    }
  }

  /** The device answered with a condition that is not a failure (see Reading.notice); true when it is new. */
  noticed(key: string, text: string) {
    const reading = this.entries.get(key)?.reading;
    if (!reading) return false;
    reading.probing = false;
    if (reading.notice === text) return false;
    reading.notice = text;
    return true;
  }

  /** The platform's service went away and came back: the inventories it cut off say nothing of the devices. */
  forgive(platform: Platform) {
    for (const [key, { reading }] of this.entries) {
      if (keyParts(key).platform !== platform) continue;
      reading.failures = 0;
      reading.failure = undefined;
    }
  }

  /**
   * The property dump of the connection's first inventory arrived before it ended: who it is, kept until an answer
   * comes; nothing once this connection answered. Returns whether it was taken.
   */
  said(key: string, info: DeviceInfo, wallNow: number, now: number, connection: number) {
    const entry = this.entries.get(key);
    if (entry?.connection !== connection || this.of(key)?.last !== undefined) return false;
    this.identify(key, info.udid);
    this.keep(key, { info, wallAt: wallNow, at: now, props: true });
    return true;
  }

  /** The device said who it is: with an inventory's answer, or first (its property dump). */
  identify(key: string, udid: string) {
    const reading = this.entries.get(key)?.reading;
    if (!reading || reading.udid === udid) return;
    if (reading.udid !== undefined) this.unindex(key, reading.udid);
    reading.udid = udid;
    let keys = this.udidIndex.get(udid);
    if (!keys) this.udidIndex.set(udid, (keys = new Set()));
    keys.add(key);
  }

  /** The one write of a phone's last inventory, kept past the record; the least recently said key past a lab's worth goes. */
  private keep(key: string, said: KeptInventory): void {
    const { life, connection } = this.entries.get(key)!;
    const at: Said = { ...said, life, connection };
    if (said.props) return void this.dumps.set(key, at);
    // An answer says more than any dump before it.
    this.dumps.delete(key);
    this.answers.delete(key);
    this.answers.set(key, at);
    this.prune();
  }

  private prune() {
    if (this.answers.size <= KEPT_PAST_RECORDS) return;
    // The keys whose record went, least recently said first.
    const past = [...this.answers.keys()].filter((k) => !this.entries.has(k));
    for (const key of past.slice(0, Math.max(0, past.length - KEPT_PAST_RECORDS))) this.answers.delete(key);
  }

  /** The reading, while the connection (when given) is still the one that asked. */
  private current(key: string, connection: number | undefined) {
    const entry = this.entries.get(key);
    return entry && (connection === undefined || entry.connection === connection) ? entry.reading : undefined;
  }

  private unindex(key: string, udid: string) {
    const keys = this.udidIndex.get(udid);
    keys?.delete(key);
    if (keys?.size === 0) this.udidIndex.delete(udid);
  }
}

/** Whether a kept inventory was said on this entry's record and connection. */
function ofEntry(said: Said, entry: Entry) {
  return said.life === entry.life && said.connection === entry.connection;
}

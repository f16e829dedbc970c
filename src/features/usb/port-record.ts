// The record per port, pure: for each port path and UTC day, the failures
// by kind, the phones seen and the phones seen failing, and per controller
// the controller's own failures. Bounded so that a busy kernel log or a
// lab that rewires every day cannot grow it: days older than KEEP_DAYS are
// dropped, serials per port and day capped, ports capped (the least
// recently seen goes first). The functions change the record in place:
// the store saves it as it is.
import { FAILURE_KINDS, type UsbEvent, type UsbEventKind } from './classify.js';

const KEEP_DAYS = 7;
export const MAX_PORTS = 512;
const MAX_CONTROLLERS = 32;
const MAX_SERIALS = 16;

export type FailureCounts = Partial<Record<UsbEventKind, number>>;

interface PortDay {
  failures: FailureCounts;
  /** The phones enumerated on the port that day. */
  serials: string[];
  /** The phones on the port when it failed (the last serial the port enumerated). */
  failingSerials: string[];
}

interface PortEntry {
  days: Record<string, PortDay>;
  /** The serial the port enumerated last: a failure before the next serial is read is blamed on it as well as on the port. */
  serial?: string;
  /** Wall ms of the port's last failure, to tell failures "at once" from failures apart. */
  lastFailureAt?: number;
  /** Wall ms of the port's last event, for the cap. */
  seenAt: number;
}

interface ControllerEntry {
  days: Record<string, FailureCounts>;
  seenAt: number;
}

export interface PortRecord {
  ports: Record<string, PortEntry>;
  controllers: Record<string, ControllerEntry>;
}

export function emptyRecord(): PortRecord {
  return { ports: {}, controllers: {} };
}

/** The UTC day of a wall-clock time, the record's day key. */
export function dayOf(wallMs: number): string {
  return new Date(wallMs).toISOString().slice(0, 10);
}

/** The days the verdicts count: yesterday, today, and any later one. */
export interface DayWindow {
  has(day: string): boolean;
}

/**
 * From yesterday (UTC) on, later days included: a replayed recording's times
 * count from its first record taken as now, so a failure it holds two hours
 * later falls on tomorrow when the replay starts after 22:00; a live record
 * is never later than now.
 */
export function windowOf(now: number): DayWindow {
  const yesterday = dayOf(now - 86_400_000);
  return { has: (day) => day >= yesterday };
}

/** Adds one classified kernel event at wall time `now`. */
export function addEvent(record: PortRecord, event: UsbEvent, now: number): void {
  const day = dayOf(now);
  if (event.controller !== undefined) {
    const entry = (record.controllers[event.controller] ??= { days: {}, seenAt: now });
    entry.seenAt = now;
    const counts = (entry.days[day] ??= {});
    counts[event.kind] = (counts[event.kind] ?? 0) + 1;
    capByAge(record.controllers, MAX_CONTROLLERS);
    return;
  }
  if (event.port === undefined) return;
  const entry = (record.ports[event.port] ??= { days: {}, seenAt: now });
  entry.seenAt = now;
  const today = (entry.days[day] ??= { failures: {}, serials: [], failingSerials: [] });
  if (event.kind === 'serial' && event.serial !== undefined) {
    entry.serial = event.serial;
    addCapped(today.serials, event.serial);
  } else if (FAILURE_KINDS.has(event.kind)) {
    today.failures[event.kind] = (today.failures[event.kind] ?? 0) + 1;
    entry.lastFailureAt = now;
    if (entry.serial !== undefined) addCapped(today.failingSerials, entry.serial);
  }
  capByAge(record.ports, MAX_PORTS);
}

/** Drops the days older than KEEP_DAYS before `now`, and the ports and controllers left without any. */
export function pruneRecord(record: PortRecord, now: number): void {
  const oldest = dayOf(now - (KEEP_DAYS - 1) * 86_400_000);
  for (const table of [record.ports, record.controllers] as Array<Record<string, { days: Record<string, unknown> }>>) {
    for (const [name, entry] of Object.entries(table)) {
      for (const day of Object.keys(entry.days)) if (day < oldest) delete entry.days[day];
      if (Object.keys(entry.days).length === 0) delete table[name];
    }
  }
}

function addCapped(list: string[], serial: string): void {
  if (!list.includes(serial) && list.length < MAX_SERIALS) list.push(serial);
}

function capByAge(table: Record<string, { seenAt: number }>, max: number): void {
  const names = Object.keys(table);
  if (names.length <= max) return;
  let oldest = names[0]!;
  for (const name of names) if (table[name]!.seenAt < table[oldest]!.seenAt) oldest = name;
  delete table[oldest];
}

/**
 * A record read back from the state file, rebuilt from what is valid in it:
 * a hand-edited or cut file loses the entries that do not parse, never
 * stops the agent; undefined when nothing of it is a record.
 */
export function recordFrom(value: unknown): PortRecord | undefined {
  if (!isObject(value) || !isObject(value.ports) || !isObject(value.controllers)) return undefined;
  const record = emptyRecord();
  for (const [port, entry] of Object.entries(value.ports)) {
    if (!/^\d+-\d+(?:\.\d+)*$/.test(port) || !isObject(entry) || !isObject(entry.days)) continue;
    const days: Record<string, PortDay> = {};
    for (const [day, d] of Object.entries(entry.days)) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !isObject(d)) continue;
      days[day] = { failures: counts(d.failures), serials: strings(d.serials), failingSerials: strings(d.failingSerials) };
    }
    record.ports[port] = {
      days,
      seenAt: typeof entry.seenAt === 'number' ? entry.seenAt : 0,
      ...(typeof entry.serial === 'string' ? { serial: entry.serial } : {}),
      ...(typeof entry.lastFailureAt === 'number' ? { lastFailureAt: entry.lastFailureAt } : {}),
    };
  }
  for (const [name, entry] of Object.entries(value.controllers)) {
    if (!isObject(entry) || !isObject(entry.days)) continue;
    const days: Record<string, FailureCounts> = {};
    for (const [day, d] of Object.entries(entry.days)) if (/^\d{4}-\d{2}-\d{2}$/.test(day)) days[day] = counts(d);
    record.controllers[name] = { days, seenAt: typeof entry.seenAt === 'number' ? entry.seenAt : 0 };
  }
  capByAge(record.ports, MAX_PORTS);
  capByAge(record.controllers, MAX_CONTROLLERS);
  return record;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function counts(value: unknown): FailureCounts {
  const out: FailureCounts = {};
  if (!isObject(value)) return out;
  for (const [kind, n] of Object.entries(value)) {
    if (FAILURE_KINDS.has(kind as UsbEventKind) && typeof n === 'number' && Number.isFinite(n) && n > 0) out[kind as UsbEventKind] = Math.floor(n);
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string').slice(0, MAX_SERIALS) : [];
}

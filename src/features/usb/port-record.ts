// The record per port, pure: for each port and UTC day the failures by kind, the phones seen and seen failing there, and
// those adb or usbmuxd placed there; per hub its own failures; per controller its failures, the echoes of its death
// (never causes), whether it stands dead, and its buses. Changed in place; the store saves it as it is.
//
// Bounded, so that a busy log, daily rewiring or a device making up serials cannot grow it: days past KEEP_DAYS go,
// strings, lists, ports, hubs, controllers and links are capped (least recently seen first), and boundRecord keeps the
// whole under MAX_RECORD_BYTES, so the file written is always one that reads back.
import { dropUndefined } from '../../util/drop-undefined.js';
import { usbBus } from '../../util/usb-path.js';
import type { UsbEvent } from './classify.js';
import { FAILURE_KINDS, type UsbEventKind } from './messages.js';

const KEEP_DAYS = 7;
export const MAX_PORTS = 512;
const MAX_HUBS = 128;
const MAX_CONTROLLERS = 32;
const MAX_SERIALS = 16;
/** Phones linked to ports, by identity: a lab's worth, the least recently linked dropped. */
const MAX_LINKS = 512;
/** A USB string holds at most 126 UTF-16 units, so the kernel never prints a longer serial. */
const MAX_SERIAL_CHARS = 128;
/** The record as JSON, at most: the oldest days go first past it (boundRecord). */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;

export type FailureCounts = Partial<Record<UsbEventKind, number>>;

interface PortDay {
  failures: FailureCounts;
  /** The phones enumerated on the port that day (the serials the kernel printed: the devices' own words). */
  serials: string[];
  /** The phones on the port when it failed (the last serial the port enumerated). */
  failingSerials: string[];
  /** The identities adb (its usb path) or usbmuxd (its location) placed on this port that day: evidence a device cannot forge. */
  linked?: string[];
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

interface HubEntry {
  days: Record<string, FailureCounts>;
  seenAt: number;
}

interface ControllerEntry extends HubEntry {
  /** Per day, the failure lines under it that followed its death: its consequences, counted apart. */
  after?: Record<string, number>;
  /** Wall ms of its death, while it stands: no bus registered by it and no device enumerated on its buses since. */
  deadSince?: number;
  /** The kernel's line that said it died, for the evidence. */
  diedBy?: string;
  /** Wall ms it began to be removed (unbound, unplugged), until it registers a bus again: what fails under it meanwhile is the removal. */
  removedSince?: number;
}

/** Where a phone's source placed it on the USB tree (adb's usb path, usbmuxd's location), and the USB serials it had there. */
export interface PortLink {
  port: string;
  /** Wall ms it was last placed there. */
  at: number;
  /** Its USB serials as the source named it there (adb's serial over USB is the device's USB serial; its udid, with and without the dash). */
  serials: string[];
}

/** Ports kept per phone: one that moved keeps its last few. */
const LINKS_PER_PHONE = 4;

export interface PortRecord {
  ports: Record<string, PortEntry>;
  hubs: Record<string, HubEntry>;
  controllers: Record<string, ControllerEntry>;
  /** Bus number to controller, as the kernel's "new USB bus registered" lines said. */
  buses: Record<string, string>;
  /** Each phone's ports, by udid, as its source placed it, the latest last. */
  links: Record<string, PortLink[]>;
}

export function emptyRecord(): PortRecord {
  return { ports: {}, hubs: {}, controllers: {}, buses: {}, links: {} };
}

/** The UTC day of a wall-clock time, the record's day key. */
export function dayOf(wallMs: number) {
  return new Date(wallMs).toISOString().slice(0, 10);
}

/**
 * The first day the verdicts count: yesterday (UTC). Today and any later day count too: a replay's times start at now,
 * so its records may fall on tomorrow.
 */
export function firstDayOf(now: number) {
  return dayOf(now - 86_400_000);
}

export interface RecordOptions {
  /** The controller of a bus from sysfs (its usbN link); the record's own bus lines are asked after it. */
  controllerOfBus?: (bus: number) => string | undefined;
}

/**
 * Adds one classified kernel event at wall ms `at`: a cause counts, unless it is a dead controller's echo; a fact moves
 * state. Returns whether it counted the event as a cause.
 */
export function addEvent(record: PortRecord, event: UsbEvent, at: number, options: RecordOptions = {}) {
  const day = dayOf(at);
  const controller = controllerOf(record, event, options);
  if (event.role === 'fact') {
    fact(record, event, at, controller, options);
    return false;
  }
  if (!FAILURE_KINDS.has(event.kind)) return false;
  if (controller !== undefined && record.controllers[controller]?.removedSince !== undefined) return false;
  const dead = controller === undefined ? unmappedDeaths(record, options)[0] : record.controllers[controller]?.deadSince !== undefined ? controller : undefined;
  if (event.role === 'consequence' || dead !== undefined) {
    // The echo of a death: counted apart on the dead controller, never as a cause.
    if (dead !== undefined) {
      const entry = record.controllers[dead]!;
      entry.after ??= {};
      entry.after[day] = (entry.after[day] ?? 0) + 1;
    }
    return false;
  }
  // A controller's death is said on its own lines (messages.ts), which name it.
  if (event.controller !== undefined) {
    const entry = entryOf(record.controllers, event.controller, at, MAX_CONTROLLERS);
    if (event.kind === 'controller-died') {
      entry.deadSince = at;
      entry.diedBy = (event.said ?? event.id).slice(0, 120);
    }
    count((entry.days[day] ??= {}), event.kind);
    return true;
  }
  if (event.hub !== undefined) {
    const entry = entryOf(record.hubs, event.hub, at, MAX_HUBS);
    count((entry.days[day] ??= {}), event.kind);
    return true;
  }
  if (event.port === undefined) return false;
  const entry = portEntry(record, event.port, at);
  const today = portDay(entry, day);
  count(today.failures, event.kind);
  entry.lastFailureAt = at;
  if (entry.serial !== undefined) addCapped(today.failingSerials, entry.serial);
  return true;
}

function fact(record: PortRecord, event: UsbEvent, at: number, controller: string | undefined, options: RecordOptions) {
  if (event.kind === 'bus-registered' && event.controller !== undefined && event.bus !== undefined) {
    record.buses[String(event.bus)] = event.controller;
    dropFirst(record.buses, MAX_CONTROLLERS * 4);
    revive(record, event.controller);
    return;
  }
  if (event.kind === 'controller-removed' && event.controller !== undefined) {
    entryOf(record.controllers, event.controller, at, MAX_CONTROLLERS).removedSince = at;
    return;
  }
  // A device enumerated: its bus's controller works again; on an unknown bus, any dead controller with unknown buses may be it.
  if (event.kind === 'new-device') {
    if (controller !== undefined) revive(record, controller);
    else for (const dead of unmappedDeaths(record, options)) revive(record, dead);
  }
  if (event.kind === 'serial' && event.port !== undefined && event.serial !== undefined) {
    const entry = portEntry(record, event.port, at);
    if (event.serial.length > MAX_SERIAL_CHARS) {
      // Not a serial the kernel prints: the port's phone is unknown from here on.
      delete entry.serial;
      return;
    }
    entry.serial = event.serial;
    addCapped(portDay(entry, dayOf(at)).serials, event.serial);
  }
}

/**
 * Links a phone to a port on its source's word: `identities` are its USB serials, `udid` keys where it was last placed,
 * `alone`: no other device shares its serial, so its verdict may count this port. Returns whether the record changed.
 */
export function linkPort(record: PortRecord, port: string, udid: string, identities: readonly string[], at: number, alone = true) {
  const serials = [...new Set(identities)].filter((id) => id !== '' && id.length <= MAX_SERIAL_CHARS).slice(0, MAX_SERIALS);
  const entry = portEntry(record, port, at);
  const linked = (portDay(entry, dayOf(at)).linked ??= []);
  const before = linked.length;
  // A serial adb lists twice (clones) places the phone, but names no one phone a verdict can blame.
  if (alone) for (const id of serials) addCapped(linked, id);
  const links = record.links[udid] ?? [];
  const was = links.find((l) => l.port === port);
  const changed = was?.serials.join('\n') !== serials.join('\n') || linked.length !== before;
  delete record.links[udid];
  record.links[udid] = [...links.filter((l) => l.port !== port), { port, at, serials }].slice(-LINKS_PER_PHONE);
  dropFirst(record.links, MAX_LINKS);
  return changed;
}

function controllerOf(record: PortRecord, event: UsbEvent, options: RecordOptions) {
  if (event.controller !== undefined) return event.controller;
  // As sysfs or the kernel's bus lines name it; undefined when neither does (or the event names no port or hub).
  const bus = Number(/^(?:usb)?(\d+)/.exec(event.port ?? event.hub ?? '')?.[1]);
  return Number.isNaN(bus) ? undefined : (options.controllerOfBus?.(bus) ?? record.buses[bus]);
}

/** For a port of an unknown controller: a dead controller with unknown buses may be its own, so its echoes never count. */
function unmappedDeaths(record: PortRecord, options: RecordOptions) {
  const mapped = new Set(Object.values(record.buses));
  return Object.keys(record.controllers).filter((c) => record.controllers[c]!.deadSince !== undefined && !mapped.has(c) && !knownBySysfs(c, options));
}

function knownBySysfs(controller: string, options: RecordOptions) {
  if (!options.controllerOfBus) return false;
  for (let bus = 1; bus <= 64; bus++) if (options.controllerOfBus(bus) === controller) return true;
  return false;
}

function revive(record: PortRecord, controller: string) {
  const entry = record.controllers[controller];
  if (!entry) return;
  delete entry.deadSince;
  delete entry.removedSince;
}

/** The entry of `name` in a table of ports, hubs or controllers, made when new, seen at `at`; the table kept to `max` by age. */
function entryOf<E extends { days: object; seenAt: number }>(table: Record<string, E>, name: string, at: number, max: number) {
  const entry = (table[name] ??= { days: {}, seenAt: at } as E);
  entry.seenAt = at;
  capByAge(table, max);
  return entry;
}

function portEntry(record: PortRecord, port: string, at: number) {
  const entry = entryOf(record.ports, port, at, MAX_PORTS);
  // The cap may have dropped the least recently seen: never this one, just seen.
  return record.ports[port] ?? (record.ports[port] = entry);
}

function portDay(entry: PortEntry, day: string) {
  return (entry.days[day] ??= { failures: {}, serials: [], failingSerials: [] });
}

function count(counts: FailureCounts, kind: UsbEventKind) {
  counts[kind] = (counts[kind] ?? 0) + 1;
}

/** Drops the days older than KEEP_DAYS before `now`, and the ports, hubs and controllers left without any. */
export function pruneRecord(record: PortRecord, now: number) {
  const oldest = dayOf(now - (KEEP_DAYS - 1) * 86_400_000);
  dropDays(record, oldest);
  for (const [udid, links] of Object.entries(record.links)) {
    const kept = links.filter((l) => dayOf(l.at) >= oldest);
    if (kept.length) record.links[udid] = kept;
    else delete record.links[udid];
  }
}

/** An entry of any of the three tables, as far as its days and its standing go: a controller's fields, its days' values any. */
type Dated = Omit<ControllerEntry, 'days'> & { days: Record<string, unknown> };

function tables(record: PortRecord) {
  return [record.ports, record.hubs, record.controllers] as Array<Record<string, Dated>>;
}

/** Drops the days before `first` from the ports, hubs and controllers, and those left without any. */
function dropDays(record: PortRecord, first: string) {
  for (const table of tables(record)) {
    for (const [name, entry] of Object.entries(table)) {
      for (const byDay of [entry.days, entry.after ?? {}]) for (const day of Object.keys(byDay)) if (day < first) delete byDay[day];
      // A controller standing dead, or being removed, is kept: that is its state, not only its count.
      if (Object.keys(entry.days).length === 0 && entry.deadSince === undefined && entry.removedSince === undefined) delete table[name];
    }
  }
}

/** Keeps the record within `maxBytes` of JSON: its oldest days first, then, when today alone is over, the least recently seen ports. */
export function boundRecord(record: PortRecord, maxBytes = MAX_RECORD_BYTES) {
  if (bytesOf(record) <= maxBytes) return;
  const days = [...new Set(tables(record).flatMap((t) => Object.values(t).flatMap((e) => Object.keys(e.days))))].sort();
  for (const next of days.slice(1)) {
    dropDays(record, next);
    if (bytesOf(record) <= maxBytes) return;
  }
  // Today alone is over: the ports seen longest ago go, each counted at its `"name":{...}` size, never more than it frees.
  let size = bytesOf(record);
  const byAge = Object.entries(record.ports).sort(([, a], [, b]) => a.seenAt - b.seenAt);
  for (const [name, entry] of byAge) {
    if (size <= maxBytes) return;
    size -= bytesOf({ [name]: entry }) - 2;
    delete record.ports[name];
  }
}

/** The record's size as written: UTF-8 bytes, not UTF-16 units (a serial may be any text). */
function bytesOf(value: unknown) {
  return Buffer.byteLength(JSON.stringify(value));
}

/** Keeps the last `max` names of a table: the first written go first. */
function dropFirst(table: Record<string, unknown>, max: number) {
  for (const name of Object.keys(table).slice(0, -max)) delete table[name];
}

function addCapped(list: string[], serial: string) {
  if (!list.includes(serial) && list.length < MAX_SERIALS) list.push(serial);
}

function capByAge(table: Record<string, { seenAt: number }>, max: number) {
  const names = Object.keys(table);
  if (names.length <= max) return;
  let oldest = names[0]!;
  for (const name of names) if (table[name]!.seenAt < table[oldest]!.seenAt) oldest = name;
  delete table[oldest];
}

/** A record read back, rebuilt from what is valid in it (a hand-edited or cut file loses only those entries); undefined if nothing is. */
export function recordFrom(value: unknown) {
  if (!isObject(value) || !isObject(value.ports) || !isObject(value.controllers)) return undefined;
  const isDay = (day: string) => DAY.test(day);
  const record: PortRecord = {
    ports: valid(
      value.ports,
      (port) => usbBus(port) !== undefined,
      (entry) =>
        isObject(entry) && isObject(entry.days)
          ? dropUndefined({
              days: valid(entry.days, isDay, (d) => {
                if (!isObject(d)) return undefined;
                const linked = strings(d.linked);
                return {
                  failures: counts(d.failures),
                  serials: strings(d.serials),
                  failingSerials: strings(d.failingSerials),
                  ...(linked.length && { linked }),
                };
              }),
              seenAt: number(entry.seenAt) ?? 0,
              serial: typeof entry.serial === 'string' && entry.serial.length <= MAX_SERIAL_CHARS ? entry.serial : undefined,
              lastFailureAt: number(entry.lastFailureAt),
            })
          : undefined,
    ),
    hubs: valid(
      value.hubs,
      (name) => /^(?:usb\d+|\d+-\d+(?:\.\d+)*)$/.test(name),
      (entry) => (isObject(entry) && isObject(entry.days) ? { days: valid(entry.days, isDay, counts), seenAt: number(entry.seenAt) ?? 0 } : undefined),
    ),
    controllers: valid(
      value.controllers,
      () => true,
      (entry) => {
        if (!isObject(entry) || !isObject(entry.days)) return undefined;
        const after = valid(entry.after, isDay, positive);
        return dropUndefined({
          days: valid(entry.days, isDay, counts),
          seenAt: number(entry.seenAt) ?? 0,
          after: Object.keys(after).length ? after : undefined,
          deadSince: number(entry.deadSince),
          diedBy: typeof entry.diedBy === 'string' && entry.diedBy.length <= 120 ? entry.diedBy : undefined,
          removedSince: number(entry.removedSince),
        });
      },
    ),
    buses: valid(
      value.buses,
      (bus) => /^\d{1,3}$/.test(bus),
      (controller) => (typeof controller === 'string' ? controller : undefined),
    ),
    links: valid(
      value.links,
      (udid) => udid.length <= MAX_SERIAL_CHARS,
      (links) => {
        const kept = (Array.isArray(links) ? links.slice(-LINKS_PER_PHONE) : []).flatMap((link) => {
          const at = isObject(link) ? number(link.at) : undefined;
          return isObject(link) && typeof link.port === 'string' && usbBus(link.port) !== undefined && at !== undefined
            ? [{ port: link.port, at, serials: strings(link.serials) }]
            : [];
        });
        return kept.length ? kept : undefined;
      },
    ),
  };
  dropFirst(record.links, MAX_LINKS);
  capByAge(record.ports, MAX_PORTS);
  capByAge(record.hubs, MAX_HUBS);
  capByAge(record.controllers, MAX_CONTROLLERS);
  boundRecord(record);
  return record;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The entries of an object whose key passes `key` and whose value `read` makes something of. */
function valid<T>(value: unknown, key: (name: string) => boolean, read: (value: unknown) => T | undefined) {
  const out: Record<string, T> = {};
  for (const [name, v] of isObject(value) ? Object.entries(value) : []) {
    const got = key(name) ? read(v) : undefined;
    if (got !== undefined) out[name] = got;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function number(value: unknown) {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A count: a finite number above 0, whole. */
function positive(value: unknown) {
  const n = number(value);
  return n !== undefined && n > 0 ? Math.floor(n) : undefined;
}

function counts(value: unknown) {
  return valid(value, (kind) => FAILURE_KINDS.has(kind as UsbEventKind), positive);
}

function strings(value: unknown) {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string' && s.length <= MAX_SERIAL_CHARS).slice(0, MAX_SERIALS) : [];
}

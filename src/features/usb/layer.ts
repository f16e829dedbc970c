// The USB layer at run time: the kernel log followed into the record per port, the record saved in the state directory,
// the verdicts worked out after each change and logged once each, and what a device's message gets from them.
import { join } from 'node:path';
import { STATUS_UNPLUGGED, type DeviceInfo } from '../../cloud/types.js';
import { OFF_SOURCE, type OffSource } from '../../devices/off-source.js';
import type { CarriedKinds, PresenceBound, PresenceReason } from '../../devices/presence.js';
import type { Listing } from '../../devices/feature.js';
import type { UsbPlace } from '../../devices/record.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { SaidOnce } from '../../log/said-once.js';
import { limited } from '../../log/limited.js';
import type { Timer } from '../../util/clock.js';
import { dropUndefined } from '../../util/drop-undefined.js';
import type { FeatureContext } from '../context.js';
import { attribute, covers, type Layer, type Verdict } from './attribution.js';
import { classifyUsbLine, speedFallback } from './classify.js';
import { hubOfPort, usbBus } from '../../util/usb-path.js';
import { KernelLogFollower } from './follow.js';
import { parseKernelLogLine } from './kernel-line.js';
import { offListMetric, PortFailureCounts, usbMetrics } from './metrics.js';
import { boundRecord, emptyRecord, linkPort, pruneRecord, type PortRecord } from './port-record.js';
import { KernelRecorder } from './recorder.js';
import { listedPhone, offSourceOf, onUsbOffList, rememberListed, type ListedPhone, type PortsByUdid } from './off-adb.js';
import { controllersOfBuses, deviceOnPort, interfacesOnPort, portOfLocation, portsBySerial, readText, speedOf } from './sysfs.js';
import { PortRecordFile, USB_PORTS_FILE } from './store.js';
import { healthCell, portHealth } from './port-health.js';
import { clipText } from './text.js';
import { cycledOf, PortWords, seenOf } from './presence.js';
import type { UsbEvidence } from '../../devices/usb-evidence.js';

/** The verdicts are worked out this long after a change: a burst of lines is one pass. */
const SETTLE_MS = 1_000;
const SAVE_EVERY_MS = 60_000;
const SYSFS_EVERY_MS = 60_000;
/** `list` reads sysfs's serials once for all its rows. */
const SYSFS_CELL_MS = 5_000;

/** The USB layer's one entry in the presence ledger: the phones listed before, on a port now, off their source's list. */
const OFF_SOURCE_REASON: PresenceReason = { kind: 'off-source', scope: 'usb' };
const WHILE_ON_PORT: PresenceBound = { while: 'sysfs shows its USB serial on the port its source last placed it on, and its source does not list it' };
/** Ports named in a verdict's log line at most: a controller's can be hundreds. */
const LOGGED_PORTS = 16;

/** Values read at most every `ms` of the clock, each key's once in that time, or afresh once dropped. */
function cell<V, K = void>(now: () => number, ms: number, read: (key: K) => V) {
  const kept = new Map<K, V>();
  let at = -Infinity;
  return {
    get: (key: K) => {
      const t = now();
      if (t - at >= ms) {
        kept.clear();
        at = t;
      }
      if (!kept.has(key)) kept.set(key, read(key));
      return kept.get(key)!;
    },
    drop: () => (at = -Infinity),
  };
}

export class UsbLayer implements UsbEvidence {
  /** The cells' clock, and the record's (wall ms). */
  private readonly now = () => this.ctx.clock.monotonic();
  private readonly wall = () => this.ctx.clock.wall();
  private readonly kernelLog: string;
  private readonly sysfsRoot: string;
  private readonly file: PortRecordFile;
  /** The interfaces a phone off its list offers on its port, read once a report, so its message and what readiness reads agree. */
  private readonly interfaces = cell(this.now, Infinity, (port: string) => interfacesOnPort(this.sysfsRoot, port));
  /** Read at its first use (rec), or by start. */
  private record: PortRecord | undefined;
  private readonly controllers = cell(this.now, SYSFS_EVERY_MS, () => controllersOfBuses(this.sysfsRoot));
  /** The controller of a bus as sysfs names it, read at most every SYSFS_EVERY_MS. */
  private readonly controllerOfBus = (bus: number) => this.controllers.get().get(bus);
  private readonly recorder = new KernelRecorder(
    () => this.rec(),
    { controllerOfBus: this.controllerOfBus },
    // A cause counted on a port is a failure of /metrics.
    (event) => event.port !== undefined && this.failures.add(event.port, event.kind),
  );
  private follower: KernelLogFollower | undefined;
  private source: string | undefined;
  private skipUpTo: number | undefined;
  private seq: number | undefined;
  private verdicts: Verdict[] = [];
  /** The verdicts logged, while they stand: one that goes away and comes back is logged again. */
  private readonly logged = new SaidOnce();
  private settle: Timer | undefined;
  /** Set once the daemon started the layer: its record is its own then; a one-shot command reads the daemon's, once. */
  private saver: { stop(): void } | undefined;
  /** The devices listed in earlier reports, by udid: one that drops off its source's list while still on a port is owed (with its last inventory). */
  private readonly listed = new Map<string, ListedPhone>();
  private readonly saidOffList = new SaidOnce();
  /** Where sysfs shows each phone the last owe asked for, by the port its source last placed it on, for the annotate pass of the same report. */
  private owedFrom: PortsByUdid | undefined;
  private readonly locations = cell(this.now, SYSFS_CELL_MS, (location: number) => portOfLocation(this.sysfsRoot, location));
  /** The phones the last report carried as on a port and off their source's list, for /metrics. */
  private offList: readonly OffSource[] = [];
  private anchor: { wall: number; tsUs: number } | undefined;
  private readonly failures = new PortFailureCounts();
  private readonly loggedByLayer = new Map<Layer, number>();
  /** What a one-shot command (`list`) read of the daemon's record in the state directory, once; null when there is none. */
  private stored: { record: PortRecord; verdicts: Verdict[] } | null | undefined;
  private readonly ports = cell(this.now, SYSFS_CELL_MS, () => portsBySerial(this.sysfsRoot));
  /** A phone's link below its port's speed, by port. */
  private readonly fallbacks = cell(this.now, SYSFS_CELL_MS, (port: string) =>
    speedFallback(port, speedOf(this.sysfsRoot, port), speedOf(this.sysfsRoot, hubOfPort(port))),
  );
  /** The kernel's last word on each port, and the port each serial was last read on: recovery's evidence. */
  private readonly words = new PortWords();
  /** Who hears each classified line (follow). */
  private readonly followers = new Set<Parameters<UsbLayer['follow']>[0]>();

  /** Without a state directory (a command that keeps nothing) the layer reads nothing. */
  constructor(private readonly ctx: FeatureContext) {
    const usb = ctx.stateDir === undefined ? { kernelLog: '', sysfsRoot: '' } : ctx.settings.usb;
    this.kernelLog = usb.kernelLog;
    this.sysfsRoot = usb.sysfsRoot;
    this.file = new PortRecordFile(join(ctx.stateDir ?? '', USB_PORTS_FILE), ctx.logger);
  }

  start() {
    const path = this.kernelLog;
    if (!this.on || this.saver) return;
    const stored = this.file.load() ?? { record: emptyRecord() };
    this.record = stored.record;
    // The phones' links (where their sources placed them) are kept with sysfs alone too: a restart knows them.
    this.saver = this.file.every(this.ctx.clock, SAVE_EVERY_MS, () => this.toKeep());
    if (path === '') return;
    // This boot's id: the kernel's record numbers start again at each boot.
    this.source = `${readText('/proc/sys/kernel/random/boot_id') || 'unknown-boot'} ${path}`;
    // The same log of the same boot: its records up to the saved one are counted already.
    this.skipUpTo = stored.source === this.source ? stored.seq : undefined;
    this.seq = this.skipUpTo;
    // The saved record's verdicts are said again, but were counted by the run that found them: a restart fires no alert.
    this.work(false);
    this.follower = new KernelLogFollower({
      path,
      logger: this.ctx.logger,
      timers: this.ctx.clock,
      onLine: (line) => this.line(line),
      // A new recording in its place: the records counted before the restart were the old one's, and its numbers start afresh.
      onRotated: () => (this.skipUpTo = undefined),
    });
    if (!this.follower.start()) this.follower = undefined;
  }

  stop() {
    this.follower?.stop();
    this.settle?.cancel();
    this.recorder.flush();
    this.saver?.stop();
  }

  /** The USB layer's word on a device: the evidence of each verdict that covers its port, its hub, its controller or the phone itself. */
  noteFor(device: DeviceSnapshot) {
    const onPort = this.placeOf(device.usb);
    if (onPort !== undefined) this.link(onPort, device);
    // A one-shot command's (`once`): the daemon's saved record's, as its `list` cell.
    const verdicts = this.saver ? this.verdicts : (this.storedRecord()?.verdicts ?? []);
    const words = verdicts.filter((v) =>
      v.layer === 'phone' ? v.subject === device.serial || v.subject === device.udid : onPort !== undefined && covers(v, onPort, this.controllerOf),
    );
    // A phone's link below its port's speed, from sysfs.
    const fallback = onPort !== undefined && this.sysfsRoot !== '' ? this.fallbacks.get(onPort) : undefined;
    const said = [...words.map((v) => v.evidence), fallback].filter((w) => w !== undefined);
    return said.length ? `USB: ${said.join('; ')}` : undefined;
  }

  /** Recovery's evidence: whether the kernel has a phone with these USB serials on a port now (both sysfs and the kernel log read). */
  seen(serials: readonly string[], port?: string) {
    if (this.kernelLog === '' || this.sysfsRoot === '' || serials.length === 0) return undefined;
    return seenOf(serials, port, this.ports.get(), this.words, (p) => this.blame(p));
  }

  /** Recovery's check after a power cycle: the port dropped and enumerated again since wall ms `since`. */
  cycled(port: string, since: number) {
    return this.follower && cycledOf(this.words, port, since);
  }

  /** The widest verdict that covers a port (controller first, as attribution orders them): the in-service clock's blame of a phone on it; a phone's own verdict is not the port's. */
  blame(port: string) {
    const v = this.verdicts.find((x) => x.layer !== 'phone' && covers(x, port, this.controllerOf));
    return v && { layer: v.layer, subject: v.subject, evidence: v.evidence };
  }

  /** Hears each classified kernel line (the flight recorder's ring of the phone on that port). */
  follow: NonNullable<UsbEvidence['follow']> = (listener) => {
    this.followers.add(listener);
    return () => this.followers.delete(listener);
  };

  /** A device left or came (the kernel's word, or a source's list): sysfs is read at the next look rather than from a cell up to SYSFS_CELL_MS old. */
  readSysfsAfresh() {
    this.ports.drop();
  }

  /**
   * Before the report asks the presence ledger: each phone listed before whose USB serial sysfs shows on a port, owed as
   * off its source's list. Only a phone the report would otherwise call gone: an adb server coming back lists phones
   * one by one, and one not listed again yet has not lost its debugging.
   */
  oweOnUsb(listing: Listing) {
    this.interfaces.drop();
    // Only the phones the report would call gone: reading 60 listed phones' interfaces costs 5 ms a report.
    const gone = [...this.listed.values()].filter((d) => !listing.listed(d.udid) && listing.absentIsGone(d.udid));
    this.owedFrom = new Map(gone.map((d) => [d.udid, this.linkedOnUsb(d.udid)]));
    const owed = onUsbOffList(gone, this.owedFrom, this.ctx.platforms.names, this.interfaces.get);
    this.ctx.registry.presence.owe(OFF_SOURCE_REASON, owed, WHILE_ON_PORT);
  }

  /** The report's devices: those the ledger carried for the layer are published for readiness and said once; the others remembered. */
  withPhonesOnUsb(devices: readonly DeviceInfo[], carried: CarriedKinds) {
    const onUsb = this.owedFrom;
    if (onUsb === undefined) return [...devices];
    const added = devices.filter((d) => carried.get(d.udid) === 'off-source');
    // The phones on a port and off their source's list now, for the other features: each set while it lasts, dropped when it ends.
    const offs = new Map(added.map((d) => [d.udid, offSourceOf(d, onUsb, this.ctx.platforms.names, this.interfaces.get)]));
    this.offList = [...offs.values()].filter((off) => off !== undefined);
    const facet = this.ctx.registry.facet(OFF_SOURCE);
    for (const [udid] of facet.entries()) if (!offs.has(udid)) facet.delete(udid);
    for (const [udid, off] of offs) if (off) facet.set(udid, off);
    for (const d of added) {
      // Said once per stay, and rate-limited over all phones: each flap a report catches re-arms the stay, and thirty
      // flapping phones would otherwise flood the log.
      if (this.saidOffList.say(d.udid)) limited(this.ctx.logger).info('usb-off-list', { udid: d.udid }, `${d.udid} ${d.message ?? ''}`, d.udid);
    }
    rememberListed(
      this.listed,
      devices.filter((d) => !added.includes(d)),
    );
    // Said once per stay off the list: listed again, or gone from USB, it may be said again.
    this.saidOffList.retain((udid) => offs.has(udid));
    return [...devices];
  }

  /**
   * The devices an earlier run reported, as if listed before this run: a phone whose USB debugging went off while the
   * agent was down is known on its port from the first report, and reported off adb, not UNPLUGGED.
   */
  rememberEarlier(devices: readonly DeviceInfo[]) {
    for (const d of devices) if (d.status !== STATUS_UNPLUGGED && !this.listed.has(d.udid)) this.listed.set(d.udid, listedPhone(d));
  }

  /** Whether `list`'s USB column gets the layer's port cells: the layer reads something (the kernel log or sysfs). */
  get on() {
    return this.kernelLog !== '' || this.sysfsRoot !== '';
  }

  /**
   * `list`'s cell of a device: its port (where its source places it, or where it last did for a phone off its list) and
   * that port's health ("1-1.4.2 ok", "1-1.4.2 14 enum failures/2d (port)"); the port alone without a record.
   */
  portCell(info: DeviceInfo, device: DeviceSnapshot | undefined) {
    const port = device ? this.placeOf(device.usb) : this.linkedOnUsb(info.udid)[0];
    if (port === undefined) return undefined;
    const record = this.follower ? { record: this.rec(), verdicts: this.verdicts } : this.storedRecord();
    return record ? healthCell(portHealth(record.record, record.verdicts, port, this.wall())) : port;
  }

  /**
   * A device's port on its source's word only (adb's usb path, usbmuxd's LocationID), which the device cannot choose:
   * any device may print any serial. A network phone has no port.
   */
  placeOf(usb: UsbPlace | undefined) {
    if (usbBus(usb?.usb) !== undefined) return usb?.usb;
    if (usb?.location === undefined || this.sysfsRoot === '') return undefined;
    return this.locations.get(usb.location);
  }

  /**
   * Links a listed phone, once it has said its udid, to the port its source places it on. A serial adb lists twice is
   * placed too, but counts for no phone's verdict: which of them failed where cannot be told.
   */
  private link(port: string, device: DeviceSnapshot) {
    if (device.udid === undefined) return;
    // An iPhone's USB serial is its udid without usbmuxd's dash; another phone's udid is its own words, taken exactly.
    const identities = [device.serial, device.udid, ...(device.platform === 'ios' ? [device.udid.replace(/-/g, '')] : [])];
    const alone = (device.usb?.sharedBy ?? 1) <= 1;
    if (!linkPort(this.rec(), port, device.udid, identities, this.wall(), alone) || !this.saver) return;
    this.file.changed();
    // A phone placed on a port anew may make a phone's verdict (failed on two ports it was placed on).
    if (this.follower) this.workSoon();
  }

  /** Where sysfs shows the phone on the ports its source last placed it on (a serial it had there, no hub). */
  private linkedOnUsb(udid: string) {
    const root = this.sysfsRoot;
    const links = root === '' ? [] : (this.rec().links[udid] ?? []);
    return links
      .filter((l) => {
        const there = deviceOnPort(root, l.port);
        return there !== undefined && !there.hub && l.serials.includes(there.serial);
      })
      .map((l) => l.port)
      .sort();
  }

  /** The record: the layer's own once started; a one-shot command's read of the daemon's, once. */
  private rec() {
    return (this.record ??= (this.on ? this.file.load()?.record : undefined) ?? emptyRecord());
  }

  /** The record the daemon keeps in the state directory, read once by a one-shot command; undefined when the kernel log is off or there is none yet. */
  private storedRecord() {
    if (this.stored === undefined) {
      // Not pruned: the days pruning would drop are before the window of the verdicts and of a port's health.
      const record = this.kernelLog === '' ? undefined : this.file.load()?.record;
      this.stored = record ? { record, verdicts: attribute(record, { now: this.wall(), controllerOfBus: this.controllerOfBus }) } : null;
    }
    return this.stored;
  }

  /** The layer's series of /metrics; none while the kernel log is off (usb.kernelLog ""). */
  metrics() {
    const sources = [...new Set(this.ctx.platforms.names.flatMap((p) => p.offList?.source ?? []))];
    return [
      ...(this.kernelLog === '' ? [] : usbMetrics(this.failures, this.verdicts, this.loggedByLayer)),
      ...(this.sysfsRoot === '' ? [] : [offListMetric(this.offList, sources)]),
    ];
  }

  private line(line: string) {
    const parsed = parseKernelLogLine(line);
    if (!parsed) return;
    if (parsed.seq !== undefined) {
      if (this.skipUpTo !== undefined && parsed.seq <= this.skipUpTo) return;
      this.seq = parsed.seq;
    }
    const event = classifyUsbLine(parsed.text);
    if (!event) return;
    const at = this.wallOf(parsed.tsUs);
    for (const hear of this.followers) hear(dropUndefined({ port: event.port, hub: event.hub, text: parsed.text, at }));
    this.words.add(event, at);
    if (event.kind === 'disconnect' || event.kind === 'new-device') this.readSysfsAfresh();
    this.recorder.add(event, at);
    this.file.changed();
    this.workSoon();
  }

  /** Works the verdicts out once a burst has settled: a burst of lines, or of links, is one pass. */
  private workSoon() {
    this.settle ??= this.ctx.clock.setTimer(
      () => {
        this.settle = undefined;
        this.work();
      },
      SETTLE_MS,
      { unref: true },
    );
  }

  /**
   * When a record was logged, on the wall clock: a ring buffer or replay read at once must not make failures hours apart
   * look simultaneous. /dev/kmsg's times count from boot (/proc/uptime); a recording's from its first record, as now. A
   * live record is never in the future (the kernel's record clock stops in a suspend, uptime does not: after one,
   * records map early, never late).
   */
  private wallOf(tsUs: number | undefined) {
    const now = this.wall();
    if (tsUs === undefined) return now;
    const live = this.kernelLog === '/dev/kmsg';
    if (!this.anchor) {
      // This boot's wall time, from /proc/uptime, where it can be read.
      const uptime = live ? Number(readText('/proc/uptime')?.split(' ')[0]) : NaN;
      this.anchor = Number.isFinite(uptime) ? { wall: now - uptime * 1000, tsUs: 0 } : { wall: now, tsUs };
    }
    const wall = this.anchor.wall + (tsUs - this.anchor.tsUs) / 1000;
    return live ? Math.min(wall, now) : wall;
  }

  /**
   * Works the verdicts out again and logs each new one once, through the limit per cause, so a flood of verdicts that
   * come and go costs at most that many lines a minute per layer and a summary; `count`: counted in /metrics.
   */
  private work(count = true) {
    const now = this.wall();
    this.recorder.flush();
    const record = this.rec();
    pruneRecord(record, now);
    this.verdicts = attribute(record, { now, controllerOfBus: this.controllerOfBus });
    const current = new Set<string>();
    const log = limited(this.ctx.logger);
    for (const v of this.verdicts) {
      const key = `${v.layer} ${v.subject}`;
      current.add(key);
      if (!this.logged.say(key)) continue;
      const ports = v.ports.length > LOGGED_PORTS ? [...v.ports.slice(0, LOGGED_PORTS), `and ${v.ports.length - LOGGED_PORTS} more`] : v.ports;
      const subject = clipText(v.subject);
      log.warn(`usb-verdict-${v.layer}`, { layer: v.layer, subject, ports }, v.evidence, subject);
      if (count) this.loggedByLayer.set(v.layer, (this.loggedByLayer.get(v.layer) ?? 0) + 1);
    }
    // A verdict that went away is logged again if it comes back.
    this.logged.retain((key) => current.has(key));
  }

  /** The controller of a bus: sysfs's name, else the kernel's bus line's, else "bus N". */
  private readonly controllerOf = (bus: number) => this.controllerOfBus(bus) ?? this.record?.buses[bus] ?? `bus ${bus}`;

  /** What is kept: the record within its bound, and where the kernel log was read up to. */
  private toKeep() {
    const record = this.rec();
    pruneRecord(record, this.wall());
    boundRecord(record);
    return dropUndefined({ record, source: this.source, seq: this.seq });
  }
}

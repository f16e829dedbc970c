// Android behind the source interface: adb's device tracker lists phones into
// the registry, and each ready phone is inventoried with one shell session
// (inventory/probe.ts). Per-device state (the tier cache, the last good
// inventory, the failure count) lives in the registry's records.
import { EventEmitter } from 'node:events';
import { adbState, STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import type { DeviceRegistry, OutcomeNote } from '../../devices/registry.js';
import { recordKey, type DeviceSnapshot, type UsbPlace } from '../../devices/record.js';
import type { Logger } from '../../log/logger.js';
import type { Clock, Timers } from '../../util/clock.js';
import { compareStrings } from '../../util/compare.js';
import { Limiter, waitWhileSettling } from '../../util/limit.js';
import { isTcpSerial } from '../../util/tcp-serial.js';
import { SourceUnreachableError, type CollectRequest, type DeviceSource, type SourceChange, type SourceDevice, type SourceEvents } from '../source.js';
import type { Metric } from '../../util/metric.js';
import type { AdbClient } from './adb/client.js';
import { AdbUnreachableError } from './adb/errors.js';
import { androidMetrics } from './metrics.js';
import { composeMessage, withNotes } from '../../cloud/device-message.js';
import { TRANSPORT_CUT } from '../../devices/transport-cut.js';
import { DeviceWatcher, type DeviceChange } from './adb/device-watcher.js';
import { notReadyDeviceInfo, notReadyMessage } from './inventory/assemble.js';
import { keptByUdid } from './inventory/dedupe.js';
import type { DeviceProber, TierCache, TierCacheStore } from './inventory/probe.js';
import { IdentityConflicts } from './identity-conflicts.js';
import { limited } from '../../log/limited.js';
import { facetKey } from '../../devices/facet.js';
import { claimOf, conflictsOf, type Conflict } from '../../devices/claims.js';
import type { AdbServerHealth } from './adb/server-health.js';
import { forgotten, REMEMBER_MS, REMEMBERED, rememberedInfo, type RememberedPhone } from './remembered.js';
import type { PresenceEntry, PresenceKind } from '../../devices/presence.js';

const PLATFORM = 'android';
const READY = 'device';
/**
 * How long after adb (re)connects its device list is taken as complete:
 * right after an adb server starts, USB phones are still being enumerated,
 * and calling them gone would flap them in the cloud.
 */
const ADB_SETTLE_MS = 10_000;

export interface AndroidSourceOptions {
  adb: AdbClient;
  prober: DeviceProber;
  registry: DeviceRegistry;
  logger: Logger;
  /** The report's wait runs on its timers (no real timer on the report path). */
  clock: Clock & Timers;
  /** Inventories at once. */
  concurrency: number;
  /**
   * How long a report waits for the inventories it asked for: while they
   * keep answering, no more than `idleMs` for the next one, and `maxMs` in
   * all. One still running then goes on in the background; its device is
   * reported with its last good inventory meanwhile, so a slow device holds
   * up a report by idleMs at most.
   */
  reportWait: { idleMs: number; maxMs: number };
  /** The tracker's periodic full listing. */
  reconcileMs: number;
  /**
   * The adb server's own round trip, asked when an inventory fails: a server
   * that does not answer is blamed instead of the phone. Without it, every
   * failure is the phone's.
   */
  server?: AdbServerHealth;
  /** The network addresses the agent keeps connected (settings: networkDevices): one off adb's list is not unplugged. */
  networkDevices?: readonly string[];
}

export class AndroidSource extends EventEmitter<SourceEvents> implements DeviceSource {
  readonly platform = PLATFORM;
  readonly readyState = READY;
  readonly failuresAreShellSessions = true;
  readonly owes: readonly PresenceKind[] = ['network-dropped', 'unanswered'];
  /** What the last collect owes the presence ledger (remembered.ts's phones, phones back on a new connection): execute.ts writes it after the answer. */
  private owing: PresenceEntry[] = [];
  private watcher: DeviceWatcher | undefined;
  private listedOnce = false;
  private readonly limiter: Limiter;
  private readonly running = new Map<string, Promise<void>>();
  /** Inventories a report stopped waiting for: their answer is news if the device was not shown ready. */
  private readonly late = new Set<string>();
  private topologyInFlight = false;
  private readonly conflicts: IdentityConflicts;

  constructor(private readonly o: AndroidSourceOptions) {
    super();
    this.limiter = new Limiter(o.concurrency);
    this.conflicts = new IdentityConflicts(o.logger);
    // The server answers again: what it cut off is asked again at once, as after an adb restart.
    o.server?.on('up', () => this.resume());
  }

  private resume(): void {
    this.o.registry.forgive(PLATFORM);
    this.emit('resumed');
  }

  get label(): string {
    return this.o.adb.label;
  }

  get listed(): boolean {
    return this.watcher ? this.watcher.listed : this.listedOnce;
  }

  get alive(): boolean {
    return this.watcher?.alive ?? this.listedOnce;
  }

  get lastError(): string | undefined {
    return this.watcher?.lastError;
  }

  /** The latest round trip of adb's device list (ms), for the metrics. */
  get roundTripMs(): number | undefined {
    return this.watcher?.lastRoundTripMs;
  }

  /** Serials adb lists more than once (phones that share a serial): one of each is left out of reports. */
  get duplicateSerials(): ReadonlyMap<string, number> {
    return this.conflicts.duplicates;
  }

  /** udids different phones give under their own serials: one of each is left out of reports. */
  get sharedUdids(): ReadonlyMap<string, readonly string[]> {
    return this.conflicts.sharedUdids;
  }

  async start(): Promise<void> {
    const watcher = new DeviceWatcher(this.o.adb, { reconcileMs: this.o.reconcileMs, logger: this.o.logger });
    this.watcher = watcher;
    watcher.on('change', (changes: DeviceChange[]) => this.sync(watcher.devices, changes));
    watcher.on('connected', () => this.emit('connected', ADB_SETTLE_MS));
    watcher.on('resumed', () => this.resume());
    await watcher.start();
    // Devices found at start go into the first report through the listing,
    // not as change events: listeners hear only what came after.
    this.o.registry.sync(PLATFORM, watcher.devices);
  }

  stop(): void {
    this.watcher?.stop();
    this.o.server?.stop();
  }

  /** adb tracking down, or an adb server that does not answer, keeps the host from reporting its phones. */
  problems(): string[] {
    const server = this.o.server?.problem();
    return [...(this.alive ? [] : [`adb device tracking is down${this.lastError ? `: ${this.lastError}` : ''}`]), ...(server ? [server] : [])];
  }

  metrics(): Metric[] {
    return androidMetrics({
      states: this.o.registry.list(PLATFORM).map((r) => r.state),
      trackerAlive: this.alive,
      roundTripMs: this.roundTripMs,
      serverUp: this.o.server ? !this.o.server.down : undefined,
      probes: this.o.prober.counters,
      duplicateSerials: this.duplicateSerials,
      sharedUdids: this.sharedUdids,
      conflicts: this.identityConflicts(),
    });
  }

  /** Devices whose identity another claims: no host action is taken for them (actions/trust.ts). */
  identityConflicts(): Conflict[] {
    const all = conflictsOf(this.o.registry.list(PLATFORM).map((r) => claimOf(r)));
    return [...new Map([...all.values()].map((c) => [`${c.kind}|${c.id}`, c])).values()];
  }

  async listOnce(): Promise<void> {
    let list;
    try {
      list = await this.o.adb.listDevices();
    } catch (err) {
      if (err instanceof AdbUnreachableError) throw new SourceUnreachableError(err.message, 'No Android device is listed.');
      throw err;
    }
    this.o.registry.sync(PLATFORM, new Map(list.map((d) => [d.serial, d.state])));
    this.listedOnce = true;
    await this.refreshTopology();
  }

  invalidateSlow(): void {
    for (const record of this.o.registry.list(PLATFORM)) this.o.prober.invalidateSlow(record.serial);
  }

  async collect(request: CollectRequest): Promise<SourceDevice[]> {
    if (this.watcher) void this.refreshTopology();
    const { refresh, hold } = request;
    const waiting: Array<Promise<void>> = [];
    const keys: string[] = [];
    for (const record of this.o.registry.list(PLATFORM)) {
      if (record.state !== READY) continue;
      const wanted = refresh === 'all' || refresh.has(record.key) || (record.last === undefined && record.failure === undefined && !record.probing);
      if (!wanted || hold?.has(record.key)) continue;
      // Only what this report asked for is waited for: an inventory another
      // report started goes on and is reported when it answers.
      const run = this.running.get(record.key) ?? this.start1(record);
      waiting.push(run);
      keys.push(record.key);
    }
    if (waiting.length && request.waitForAll) await Promise.all(waiting);
    else await waitWhileSettling(waiting, this.o.reportWait.idleMs, this.o.reportWait.maxMs, this.o.clock);
    for (const key of keys) if (this.running.has(key)) this.late.add(key);
    const described: Described[] = [];
    const records = [...this.o.registry.list(PLATFORM)].sort((a, b) => compareStrings(a.serial, b.serial));
    described.push(...this.rememberedOffList());
    for (const record of records) {
      const remembered = this.remembered(record);
      const back = remembered ? undefined : this.backOnNewConnection(record);
      // A host-level cause first: while the adb server does not answer, what is said of a phone is its last known state, and why.
      const said = remembered?.info ?? back ?? this.describe(record);
      const info = said && withNotes(said, [this.o.server?.deviceNote()]);
      if (info) described.push({ serial: record.serial, info, phone: remembered?.phone, back: back !== undefined });
    }
    this.conflicts.checkUdids(described.filter((d) => d.info.state === READY));
    // One per udid as before; a remembered phone, or one back on a new connection, that wins its udid is owed in
    // the presence ledger; one that loses to a twin on USB hands it its tunnel here, as a listed TCP twin does.
    const listed: SourceDevice[] = [];
    const owing: PresenceEntry[] = [];
    for (const { info, from } of keptByUdid(described.map((d) => d.info))) {
      const { serial, phone, back } = described[from]!;
      if (phone !== undefined) owing.push({ reason: networkDropped(serial), devices: [info], bound: { until: phone.at + REMEMBER_MS } });
      else if (back) owing.push({ reason: unanswered(serial), devices: [info], bound: UNTIL_IT_ANSWERS });
      else listed.push({ key: recordKey(PLATFORM, serial), info });
    }
    this.owing = owing;
    return listed;
  }

  owed(): readonly PresenceEntry[] {
    return this.owing;
  }

  /**
   * A TCP record that has not said who it is on this connection, reported
   * as the phone last identified at its address while the rule of
   * remembered.ts keeps it.
   */
  private remembered(record: DeviceSnapshot): { info: DeviceInfo; phone: RememberedPhone } | undefined {
    if (record.udid !== undefined || !isTcpSerial(record.serial)) return undefined;
    const phone = this.kept(record.key, true);
    return (
      phone && {
        info: rememberedInfo(phone, { serial: record.serial, state: record.state, failure: record.failure?.text, cut: this.cutAfter(record.serial, phone) }),
        phone,
      }
    );
  }

  /** The remembered network phones adb does not list now, while the rule keeps them. */
  private rememberedOffList(): Described[] {
    const out: Described[] = [];
    for (const [key] of this.o.registry.facet(REMEMBERED).entries()) {
      if (this.o.registry.get(key)) continue;
      const serial = key.slice(PLATFORM.length + 1);
      // Off adb on purpose (its port switched off): the writer that owes it for that words it, with why.
      if (this.o.registry.presence.owesBefore('network-dropped', key, this.o.clock.monotonic())) continue;
      const phone = this.kept(key, false);
      if (phone) out.push({ serial, info: rememberedInfo(phone, { serial, state: undefined, cut: this.cutAfter(serial, phone) }), phone });
    }
    return out;
  }

  /** The remembered phone at this key, unless the rule forgets it now (said once, when it does). */
  private kept(key: string, listed: boolean): RememberedPhone | undefined {
    const memory = this.o.registry.facet(REMEMBERED);
    const phone = memory.get(key);
    if (!phone) return undefined;
    const serial = key.slice(PLATFORM.length + 1);
    const why = forgotten(phone, this.o.clock.monotonic(), { listed, keptConnected: this.o.networkDevices?.includes(serial) ?? false });
    if (why === undefined) return phone;
    memory.delete(key);
    limited(this.o.logger).info(
      'network-device-forgotten',
      { serial, udid: phone.udid },
      `network device ${phone.udid} at ${serial} is forgotten: ${why}; it is reported UNPLUGGED`,
      serial,
    );
    return undefined;
  }

  /** The agent's own last cut of the address's transport after the phone's last inventory, if any, at its wall time. */
  private cutAfter(serial: string, phone: RememberedPhone): { atWall: number; what: string } | undefined {
    const cut = this.o.registry.facet(TRANSPORT_CUT).get(recordKey(PLATFORM, serial));
    return cut && cut.at >= phone.at ? { atWall: this.o.clock.wall() - (this.o.clock.monotonic() - cut.at), what: cut.what } : undefined;
  }

  private sync(listing: ReadonlyMap<string, string>, changes: DeviceChange[]): void {
    this.o.registry.sync(PLATFORM, listing);
    const out: SourceChange[] = changes.map((c) => ({ key: recordKey(PLATFORM, c.serial), serial: c.serial, from: c.from, to: c.to }));
    this.emit('change', out);
  }

  /**
   * adb's long listing (usb path, transport id), one at a time: a slow adb
   * server delays the usb column of the metrics, never a report. It is also
   * where phones sharing one serial show: adb lists each of them.
   */
  private async refreshTopology(): Promise<void> {
    if (this.topologyInFlight) return;
    this.topologyInFlight = true;
    try {
      const list = await this.o.adb.listDevicesLong();
      const places = new Map<string, UsbPlace>();
      const count = new Map<string, number>();
      for (const d of list) count.set(d.serial, (count.get(d.serial) ?? 0) + 1);
      for (const d of list) places.set(d.serial, { usb: d.usb, transportId: d.transportId, product: d.product, sharedBy: count.get(d.serial) });
      this.o.registry.setUsb(PLATFORM, places);
      this.conflicts.check(list);
    } catch (err) {
      this.o.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'adb long device listing failed; usb paths stay as they were');
    } finally {
      this.topologyInFlight = false;
    }
  }

  /**
   * A phone back on a new connection (its transport dropped and came back)
   * that has not answered on it yet: until it does, it keeps the fields it
   * last gave, so the cloud is never sent it without its model. Owed in the
   * presence ledger (unanswered), not in the source's list.
   */
  private backOnNewConnection(record: DeviceSnapshot): DeviceInfo | undefined {
    if (record.state !== READY || record.last) return undefined;
    const earlier = this.o.registry.facet(EARLIER).get(record.key);
    if (!earlier || earlier.last.udid !== record.udid) return undefined;
    const message = record.failure
      ? this.advice(record)
      : `the device is back on a new adb connection and its inventory has not finished yet; reported with its last inventory, of ${new Date(earlier.wallAt).toISOString()}`;
    return { ...earlier.last, state: adbState(READY), status: STATUS_UNAVAILABLE, ...composeMessage([message]) };
  }

  /** What the report says of one device, from what is known now. */
  private describe(record: DeviceSnapshot): DeviceInfo | undefined {
    const { serial, state, failure } = record;
    const cached = state === READY ? record.last : undefined;
    if (cached) {
      if (!failure || cached.message) return cached;
      return { ...cached, status: STATUS_UNAVAILABLE, ...composeMessage([this.advice(record)]) };
    }
    const early = state === READY ? this.o.registry.facet(EARLY).get(record.key) : undefined;
    if (early) {
      // Its inventory is still running, or failed before it ended: who it is, from the properties it gave first.
      return {
        ...early,
        state: adbState(READY),
        status: STATUS_UNAVAILABLE,
        ...composeMessage([failure ? this.advice(record) : `${NOT_FINISHED}; ${FROM_PROPS}`]),
      };
    }
    if (record.udid === undefined && isTcpSerial(serial)) {
      // One rule for a device reached over TCP that never said who it is,
      // whatever its state: adb names it HOST:PORT, which is not its udid, so
      // reporting it would leave a phantom in the cloud.
      const logged = this.o.registry.facet(LEFT_OUT_LOGGED);
      if (state !== READY && !logged.get(record.key)) {
        logged.set(record.key, true);
        // (A ready one whose inventory failed was logged with the failure.)
        limited(this.o.logger).warn(
          'network-device-unidentified',
          { serial, state },
          `network device ${serial} is ${state} and has not said who it is yet; it is left out of reports until it answers its inventory. ${notReadyMessage(state, serial)}`,
          serial,
        );
      }
      return undefined;
    }
    const info = notReadyDeviceInfo(serial, state, record.udid);
    if (state === READY) Object.assign(info, composeMessage([failure ? this.advice(record) : NOT_FINISHED]));
    return info;
  }

  private advice(record: DeviceSnapshot): string {
    const failure = record.failure!;
    const since = new Date(failure.since).toISOString();
    const now = record.probing ? 'its inventory is still running; ' : '';
    return (
      `the device has not answered its adb shell inventory since ${since} (${record.failures} tries; ${failure.text}); ${now}` +
      'reported with its last known state. Replug or reboot it if this lasts; the agent asks it again less and less often meanwhile.'
    );
  }

  private start1(record: DeviceSnapshot): Promise<void> {
    const { key, serial } = record;
    const { registry, clock } = this.o;
    // News when it answers after the report moved on: a device not yet shown ready.
    const wasNews = record.last === undefined || record.failures > 0;
    const connection = registry.asked(key, clock.monotonic());
    let startedAt = clock.monotonic();
    const run = this.limiter
      .run(() => {
        startedAt = clock.monotonic();
        return this.o.prober.probe(serial, record.state, connection, (info) => this.identified(key, connection, info));
      })
      .then(
        async (answer) => {
          // Cut short while the adb server was not answering: the server's fault; the last good reading stays.
          if (answer.message !== undefined && (await this.serverAtFault(startedAt))) return;
          const progress = answer.message !== undefined && this.o.prober.madeProgress(serial, connection);
          // A cut inventory (a slow phone's framework commands past the
          // deadline) keeps what the last one of this connection said for
          // the fields it did not read: it replaced the last reading whole,
          // and the phone went out without its model or state (issue 36).
          const info = answer.message === undefined ? answer : withLastKnown(answer, registry.get(key)?.last);
          const note = registry.answered(key, info, clock.wall(), clock.monotonic(), info.message, connection, progress);
          if (registry.isCurrent(key, connection ?? -1)) registry.facet(EARLIER).set(key, { last: info, wallAt: clock.wall() });
          // Who answers at a network address is remembered past its records (remembered.ts).
          if (isTcpSerial(serial) && registry.isCurrent(key, connection ?? -1)) {
            registry.facet(REMEMBERED).set(key, { udid: info.udid, last: info, wallAt: clock.wall(), at: clock.monotonic() });
          }
          if (info.message) this.logFailure(serial, note, info.message, 'the inventory of the device was cut short; the fields it did not report are left out');
          else if (note.recovered) limited(this.o.logger).info('device-inventory-recovered', { serial }, 'device answers its inventory in full again', serial);
        },
        async (err: unknown) => {
          const text = err instanceof Error ? err.message : String(err);
          if (await this.serverAtFault(startedAt)) {
            // Not the phone's failure: no count, no "replug it", nothing for recovery to act on.
            this.o.logger.debug({ serial, err: text }, 'inventory of the device failed while the adb server did not answer; not counted against the device');
            return;
          }
          const known = registry.get(key);
          const what = known?.last
            ? 'inventory of the device failed; its last good inventory is reported'
            : known?.udid !== undefined || !isTcpSerial(serial)
              ? 'inventory of the device failed; it is reported with its adb state only'
              : registry.facet(REMEMBERED).get(key)
                ? `inventory of the device failed before it said who it is on this connection; it is reported as ${registry.facet(REMEMBERED).get(key)!.udid}, the phone last identified at this address, with its last inventory`
                : 'inventory of the device failed before it said who it is; it is left out of reports until it answers';
          this.logFailure(serial, registry.failed(key, text, clock.wall(), clock.monotonic(), connection), text, what);
        },
      )
      .finally(() => {
        this.running.delete(key);
        registry.settled(key, connection);
        if (this.late.delete(key) && wasNews) this.emit('news', key);
      });
    this.running.set(key, run);
    return run;
  }

  /**
   * The phone's property dump arrived while its first inventory goes on (a
   * slow phone's framework commands take the whole deadline): who it is, its
   * model and Android version are known now, and it is reported with them
   * until the inventory ends. A report that already went without it (a
   * network phone is left out until it says who it is) hears it as news.
   */
  private identified(key: string, connection: number | undefined, info: DeviceInfo): void {
    const { registry } = this.o;
    const record = registry.get(key);
    if (!record || record.last !== undefined || !registry.isCurrent(key, connection ?? -1)) return;
    registry.identify(key, info.udid);
    registry.facet(EARLY).set(key, info);
    if (this.late.has(key)) this.emit('news', key);
  }

  /** Whether the adb server, asked now, is to blame for an inventory that started at `since` (monotonic) and failed. */
  private serverAtFault(since: number): Promise<boolean> {
    return this.o.server ? this.o.server.blame(since) : Promise.resolve(false);
  }

  /** One warning per device and distinct problem, not one per report. */
  private logFailure(serial: string, note: OutcomeNote, text: string, what: string): void {
    if (note.newProblem) limited(this.o.logger).warn('device-inventory-problem', { serial, err: text }, what, serial);
  }
}

/** What the report says of one device, and the remembered network phone it stands for, if it is one (remembered.ts), or whether it is back on a new connection unanswered. */
interface Described {
  serial: string;
  info: DeviceInfo;
  phone?: RememberedPhone;
  back?: boolean;
}

/** Why a phone back on a new connection is carried with its earlier inventory: one entry per record, until its inventory answers (the source's next word). */
function unanswered(serial: string): PresenceEntry['reason'] {
  return { kind: 'unanswered', scope: recordKey(PLATFORM, serial) };
}
const UNTIL_IT_ANSWERS: PresenceEntry['bound'] = { while: 'its inventory on the new connection has not answered' };

/**
 * Why a remembered network phone is carried: dropped or kicked off its
 * address, not yet identified again; one entry per address (its record key),
 * bounded by the hour remembered.ts keeps it.
 */
function networkDropped(serial: string): PresenceEntry['reason'] {
  return { kind: 'network-dropped', scope: recordKey(PLATFORM, serial) };
}

/** A cut inventory's fields over the last reading of the same phone: a field it did not read keeps its last known value. */
function withLastKnown(cut: DeviceInfo, last: DeviceInfo | undefined): DeviceInfo {
  if (last === undefined || last.udid !== cut.udid) return cut;
  const merged: Record<string, unknown> = { ...last };
  for (const [k, v] of Object.entries(cut)) if (v !== undefined) merged[k] = v;
  return merged as unknown as DeviceInfo;
}

/**
 * The prober's tier caches, kept in the registry's records (and dropped with
 * the connection); an inventory's reads and writes reach only the connection
 * it started on.
 */
export function registryTierStore(registry: DeviceRegistry): TierCacheStore {
  const caches = registry.facet(TIER_CACHE);
  const current = (key: string, connection: number | undefined): boolean =>
    connection === undefined ? registry.get(key) !== undefined : registry.isCurrent(key, connection);
  return {
    get: (serial, connection) => {
      const key = recordKey(PLATFORM, serial);
      return current(key, connection) ? caches.get(key) : undefined;
    },
    set: (serial, cache, connection) => {
      const key = recordKey(PLATFORM, serial);
      if (current(key, connection)) caches.set(key, cache);
    },
    delete: (serial, connection) => {
      const key = recordKey(PLATFORM, serial);
      if (current(key, connection)) caches.delete(key);
    },
  };
}

/**
 * The last good text of a cached section (slow or connection tier) of the
 * device's current connection: what a feature reads of the inventory's own
 * shell session instead of opening another (readiness reads its section).
 */
export function cachedSection(registry: Pick<DeviceRegistry, 'facet'>, key: string, section: string): string | undefined {
  return registry.facet(TIER_CACHE).get(key)?.sections.get(section);
}

/**
 * A system property of the device's current connection, from its cached
 * property dump (only the properties the probes declare, IDENTITY_PROPS):
 * readiness reads the build fingerprint here to see an OTA.
 */
export function cachedProp(registry: Pick<DeviceRegistry, 'facet'>, key: string, name: string): string | undefined {
  return registry.facet(TIER_CACHE).get(key)?.props?.[name];
}

/** The prober's tier cache of each connection: its readings say nothing of the next one. */
const TIER_CACHE = facetKey<TierCache>('android-tier-cache', 'connection');
/** The last inventory of the record, past its connections: what a phone back on a new connection is reported with until it answers. */
const EARLIER = facetKey<{ last: DeviceInfo; wallAt: number }>('android-earlier-inventory', 'record');
/** Who a phone is, from the property dump its first inventory of the connection gave before it ended. */
const EARLY = facetKey<DeviceInfo>('android-early-identity', 'connection');
/** What a ready phone not yet inventoried on this connection says: the one wording, with or without its identity. */
const NOT_FINISHED = 'the inventory of the device has not finished yet';
const FROM_PROPS = 'reported with what its system properties say (its identity, model and Android version) until it ends';
/** Logged once per connection: a TCP device that has not said who it is is left out of reports. */
const LEFT_OUT_LOGGED = facetKey<true>('android-left-out-logged', 'connection');

// Android behind the source interface: adb's device tracker lists phones into the registry, the inventory runner asks
// each ready phone a report plans in one shell session, and describe.ts says each phone from what is known of it.
import { EventEmitter } from 'node:events';
import { recordKey } from '../../devices/record.js';
import { compareStrings } from '../../util/compare.js';
import { SourceUnreachableError, type CollectRequest, type DeviceSource, type ListingChange, type SourceDevice, type SourceEvents } from '../source.js';
import type { AdbClient } from './adb/client.js';
import { AdbUnreachableError } from './adb/errors.js';
import { androidMetrics } from './metrics.js';
import { DeviceWatcher } from './adb/device-watcher.js';
import { keptByUdid } from './inventory/dedupe.js';
import { InventoryRunner, type InventoryRunnerOptions } from './inventory/runner.js';
import { IdentityConflicts } from './identity-conflicts.js';
import { claimOf, conflictsOf } from '../../devices/claims.js';
import { REMEMBER_MS, REMEMBERED } from './remembered.js';
import { isTcpSerial } from '../../util/tcp-serial.js';
import { Describer } from './describe.js';
import { MdnsFinder } from './mdns-finder.js';
import type { PresenceEntry, PresenceKind } from '../../devices/presence.js';
import type { DeviceInfo } from '../../cloud/types.js';
import { errorText } from '../../util/error-text.js';

const PLATFORM = 'android';
const NOT_LISTED = 'No Android device is listed.';
/** What /healthz says (the words before the colon) of an adb server the agent cannot reach: server-health.ts's words. */
const SERVER_DOWN = 'adb server not answering';
const READY = 'device';
/** How long after adb (re)connects its list is complete: a fresh server still enumerates USB, and "gone" would flap. */
const ADB_SETTLE_MS = 10_000;

/** What the source is built with: the inventory runner's parts (inventory/runner.ts), and adb's. */
interface AndroidSourceOptions extends Omit<InventoryRunnerOptions, 'news'> {
  adb: AdbClient;
  /** The tracker's periodic full listing. */
  reconcileMs: number;
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
  /** Why a one-shot command's listing found no adb server: what the devices it carries are told. */
  private onceError: string | undefined;
  private topologyInFlight = false;
  private readonly conflicts: IdentityConflicts;
  private readonly runner: InventoryRunner;
  private readonly describer: Describer;
  /** Wireless-debugging phones found again on their new port after a reboot (mdns-finder.ts). */
  private readonly mdns: MdnsFinder;

  constructor(private readonly o: AndroidSourceOptions) {
    super();
    this.mdns = new MdnsFinder({ adb: o.adb, registry: o.registry, logger: o.logger, clock: o.clock });
    this.conflicts = new IdentityConflicts(o.logger);
    this.runner = new InventoryRunner({ ...o, news: (key) => this.emit('news', key) });
    this.describer = new Describer(o);
    // The server answers again: what it cut off is asked again at once, as after an adb restart.
    o.server?.on('up', () => this.resume());
  }
  private resume() {
    this.o.registry.readings.forgive(PLATFORM);
    this.emit('resumed');
  }

  get label() {
    return this.o.adb.label;
  }

  get listed() {
    return this.watcher?.listed ?? this.listedOnce;
  }

  /** A ready network phone whose first inventory has neither given its udid nor failed: bounded by the inventory's timeout. */
  get naming() {
    return this.o.registry
      .list(PLATFORM)
      .some((r) => r.state === READY && r.udid === undefined && r.failures === 0 && isTcpSerial(r.serial) && !this.o.registry.facet(REMEMBERED).get(r.key));
  }

  private get alive() {
    return this.watcher?.alive ?? this.listedOnce;
  }

  get lastError() {
    return this.watcher ? this.watcher.lastError : this.onceError;
  }

  async start() {
    const watcher = new DeviceWatcher(this.o.adb, { reconcileMs: this.o.reconcileMs, logger: this.o.logger, clock: this.o.clock });
    this.watcher = watcher;
    watcher.on('change', (changes: ListingChange[]) => {
      this.o.registry.sync(PLATFORM, watcher.devices);
      this.emit(
        'change',
        changes.map((c) => ({ ...c, key: recordKey(PLATFORM, c.serial) })),
      );
    });
    const { timeline } = this.o.registry;
    watcher.on('connected', () => {
      timeline.service(PLATFORM, true, this.o.clock.monotonic());
      this.emit('connected', ADB_SETTLE_MS);
    });
    watcher.on('resumed', () => this.resume());
    // Its connection to the server ended: the inventories running then were cut with it (a restart), not by their phones.
    watcher.on('ended', (at: number) => {
      timeline.service(PLATFORM, false, at);
      this.o.server?.cut();
    });
    await watcher.start();
    // Devices found at start go into the first report through the listing: listeners hear only what came after.
    this.o.registry.sync(PLATFORM, watcher.devices);
  }

  stop() {
    this.watcher?.stop();
    this.o.server?.stop();
  }

  /** An adb server that cannot be reached keeps the host from reporting: one reason, named as the server's, not tracking's. */
  problems() {
    const server = this.o.server?.problem();
    if (this.alive) return server ? [server] : [];
    if (this.serverUnreachable) return [server ?? `${SERVER_DOWN}: ${this.lastError ?? 'no answer'}`];
    return [`adb device tracking is down${this.lastError ? `: ${this.lastError}` : ''}`, ...(server ? [server] : [])];
  }

  /** The adb server cannot be reached at all now (the watcher's word; a one-shot command's listOnce throws instead). */
  private get serverUnreachable() {
    return this.watcher?.serverUnreachable ?? false;
  }

  metrics() {
    return androidMetrics({
      states: this.o.registry.list(PLATFORM).map((r) => r.state),
      trackerAlive: this.alive,
      roundTripMs: this.watcher?.lastRoundTripMs,
      // Down when its own round trip failed, or when nothing answers at its address (no inventory then fails to ask it).
      serverUp: this.o.server ? !this.o.server.down && !this.serverUnreachable : undefined,
      probes: this.o.prober.counters,
      // Serials adb lists more than once, udids different phones give: one of each is left out of reports.
      duplicateSerials: this.conflicts.duplicates,
      sharedUdids: this.conflicts.sharedUdids,
      // Devices whose identity another claims: no host action is taken for them (actions/trust.ts).
      conflicts: [...new Map([...conflictsOf(this.o.registry.list(PLATFORM).map((r) => claimOf(r))).values()].map((c) => [`${c.kind}|${c.id}`, c])).values()],
    });
  }

  async listOnce() {
    let list;
    try {
      list = await this.o.adb.listDevices();
    } catch (err) {
      if (err instanceof AdbUnreachableError) throw new SourceUnreachableError((this.onceError = err.message), NOT_LISTED);
      throw err;
    }
    this.o.registry.sync(PLATFORM, new Map(list.map((d) => [d.serial, d.state])));
    this.listedOnce = true;
    await this.refreshTopology();
  }

  invalidateSlow() {
    for (const record of this.o.registry.list(PLATFORM)) this.o.prober.invalidateSlow(record.serial);
  }

  async collect(request: CollectRequest) {
    // No adb server to ask is not a collect with no phones: the report then calls none gone and carries what it knows.
    if (this.serverUnreachable) throw new SourceUnreachableError(this.lastError ?? `the adb server at ${this.label} does not answer`, NOT_LISTED);
    if (this.watcher) {
      void this.refreshTopology();
      void this.mdns.tick();
    }
    await this.runner.run(this.o.registry.list(PLATFORM), request);
    const records = this.o.registry.list(PLATFORM).sort((a, b) => compareStrings(a.serial, b.serial));
    const described = this.describer.all(records);
    this.conflicts.checkUdids(described.filter((d) => d.info.state === READY));
    // One per udid as before; a remembered phone, or one back on a new connection, that wins its udid is owed in the
    // presence ledger; one that loses to a twin on USB hands it its tunnel here, as a listed TCP twin does.
    const listed: SourceDevice[] = [];
    const owing: PresenceEntry[] = [];
    for (const { info, from } of keptByUdid(described.map((d) => d.info))) {
      const { serial, phone, back } = described[from]!;
      const key = recordKey(PLATFORM, serial);
      // A remembered phone: one entry per address, bounded by remembered.ts's hour. One back on a new connection: one
      // entry per record, until its inventory answers (the source's next word).
      if (phone !== undefined)
        owing.push({ reason: { kind: 'network-dropped', scope: key }, devices: [owedAs(info, key)], bound: { until: phone.at + REMEMBER_MS } });
      else if (back)
        owing.push({
          reason: { kind: 'unanswered', scope: key },
          devices: [owedAs(info, key)],
          bound: { while: 'its inventory on the new connection has not answered' },
        });
      else listed.push({ key, info });
    }
    this.owing = owing;
    return listed;
  }

  owed() {
    return this.owing;
  }

  /** adb's long listing (usb path, transport id), one at a time: a slow server delays the usb column, never a report. */
  private async refreshTopology() {
    if (this.topologyInFlight) return;
    this.topologyInFlight = true;
    try {
      const list = await this.o.adb.listDevicesLong();
      const shared = Map.groupBy(list, (d) => d.serial);
      this.o.registry.setUsb(
        PLATFORM,
        new Map(list.map((d) => [d.serial, { usb: d.usb, transportId: d.transportId, product: d.product, sharedBy: shared.get(d.serial)!.length }])),
      );
      this.conflicts.check(list);
    } catch (err) {
      this.o.logger.debug({ err: errorText(err) }, 'adb long device listing failed; usb paths stay as they were');
    } finally {
      this.topologyInFlight = false;
    }
  }
}

/** What the source owes of a phone it says over its last inventory: its state, status, tunnel and message now. */
function owedAs(info: DeviceInfo, key: string) {
  const { udid, state, status, adbTunnelInfo, message } = info;
  return { udid, key, says: { state, status, ...(adbTunnelInfo !== undefined && { adbTunnelInfo }) }, why: message ?? '' };
}

// iPhones behind the source interface: usbmuxd lists them, and each is inventoried with one lockdown session (bounded
// concurrency, so a silent phone holds up only itself). The root domain and the readiness facts are read once per
// connection and slow refresh, and kept with the device.
import { existsSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import type { DeviceInfo } from '../../cloud/types.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { recordKey, type UsbPlace } from '../../devices/record.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { Clock, Timers } from '../../util/clock.js';
import { compareStrings } from '../../util/compare.js';
import { mapLimit } from '../../util/limit.js';
import { asks, type CollectRequest, type DeviceSource, type ListingChange, type SourceEvents } from '../source.js';
import type { Dict } from './framing.js';
import { iosDeviceInfo, notAnsweringDeviceInfo, notPairedDeviceInfo } from './inventory.js';
import type { probeIphone, ProbeResult } from './probe.js';
import { IosWatcher, type IosWatcherOptions } from './watcher.js';
import { limited } from '../../log/limited.js';
import { facetKey } from '../../devices/facet.js';
import { IOS_WEAR } from './wear.js';
import { READINESS_FACTS } from '../../devices/readiness-facts.js';
import { pairedFacts, unpairedFacts } from './readiness.js';

const PLATFORM = 'ios';
/** usbmuxd's word for a phone it lists: each can be asked. */
const READY = 'attached';

export interface IosSourceOptions extends IosWatcherOptions {
  registry: DeviceRegistry;
  /** Its reads' times, and its watcher's timers. */
  clock: Clock & Timers;
  concurrency: number;
  /** How long the root domain read on a connection is used before it is read again. */
  slowFactsRefreshMs: number;
  /** For tests; the real lockdown probe by default. */
  probe?: typeof probeIphone;
}

/**
 * The root domain of one usbmuxd connection (DeviceID), the amfi domain read
 * with it, when they were read (monotonic ms), and the developer disk image
 * as last read on the connection.
 */
interface IdentityCache {
  deviceId: number;
  root: Dict;
  amfi?: Dict;
  at: number;
  image?: 'mounted' | 'not-mounted';
}

/** The iOS source's facet: the root domain, dropped with the connection (a replug reads it again). */
const IDENTITY = facetKey<IdentityCache>('ios-identity', 'connection');

export class IosSource extends EventEmitter<SourceEvents> implements DeviceSource {
  readonly platform = PLATFORM;
  readonly readyState = READY;
  private readonly watcher: IosWatcher;
  private started = false;
  private slowStale = false;

  constructor(private readonly o: IosSourceOptions) {
    super();
    this.watcher = new IosWatcher(o);
    // usbmuxd's word on itself, as the timeline keeps it for every view.
    this.watcher.on('connected', () => o.registry.timeline.service(PLATFORM, true, o.clock.monotonic()));
    this.watcher.on('ended', (at: number) => o.registry.timeline.service(PLATFORM, false, at));
    this.watcher.on('change', (changes: ListingChange[]) => {
      this.syncRegistry();
      this.emit(
        'change',
        changes.map((c) => ({ ...c, key: recordKey(PLATFORM, c.serial) })),
      );
    });
  }

  get label() {
    return this.o.address.label;
  }

  /** No socket at the path: the watcher looks for one at each reconnect, and sees no iPhone until then. */
  whereNow() {
    const a = this.o.address;
    return 'path' in a && !existsSync(a.path) ? `${a.label}: no usbmuxd socket there; iPhones are looked for once one appears` : a.label;
  }

  get listed() {
    return this.started;
  }

  /** usbmuxd has answered a list since the start: a host without usbmuxd lists no iPhone, but says nothing of one an earlier run reported. */
  get answered() {
    return this.watcher.answered;
  }

  /** The registry's iPhones as usbmuxd lists them, each with where usbmuxd locates it (the USB layer's link to a port). */
  private syncRegistry() {
    this.o.registry.sync(PLATFORM, this.watcher.devices);
    const places = new Map<string, UsbPlace>();
    for (const udid of this.watcher.devices.keys()) {
      const location = this.watcher.device(udid)?.location;
      if (location !== undefined) places.set(udid, { location });
    }
    this.o.registry.setUsb(PLATFORM, places);
  }

  async start() {
    await this.watcher.start();
    this.started = true;
    this.syncRegistry();
  }

  stop() {
    this.watcher.stop();
  }

  /** The phones present now; usbmuxd not answering lists none (a host without iPhones is the common case). */
  listOnce() {
    return this.start();
  }

  invalidateSlow() {
    this.slowStale = true;
  }

  /** The phones present now: those asked for (and unknown ones) read afresh, the others described from their last reading. */
  async collect(request: CollectRequest) {
    const records = this.o.registry.list(PLATFORM).sort((a, b) => compareStrings(a.serial, b.serial));
    if (!records.length) return [];
    // One kept through a usbmuxd restart but not listed again yet: described from its last reading, not asked.
    const wanted = records.filter((r) => r.state === READY && this.watcher.listedNow(r.serial) && asks(request, r));
    const fresh = new Map<string, DeviceInfo | undefined>();
    if (wanted.length) {
      // Loaded with the first iPhone: node:tls and the lockdown client cost nothing before.
      const probe = this.o.probe ?? (await import('./probe.js')).probeIphone;
      const stale = this.slowStale;
      this.slowStale = false;
      await mapLimit(wanted, this.o.concurrency, async (record) => fresh.set(record.key, await this.inventory(record, probe, stale)));
    }
    return records.flatMap((record) => {
      const info = fresh.has(record.key) ? fresh.get(record.key) : this.describe(record);
      return info ? [{ key: record.key, info }] : [];
    });
  }

  /** What the report says of a phone not read this time, from what is known of it. */
  private describe(record: DeviceSnapshot) {
    if (!this.watcher.device(record.serial)) return undefined;
    const udid = record.serial;
    if (record.failure) return notAnsweringDeviceInfo(udid, record.failure.text, record.last);
    if (record.last) return record.last;
    if (record.notice) return notPairedDeviceInfo(udid, record.notice);
    return notAnsweringDeviceInfo(udid, 'its first reading has not finished yet');
  }

  private async inventory(record: DeviceSnapshot, probe: typeof probeIphone, stale: boolean) {
    const device = this.watcher.device(record.serial);
    if (!device) return undefined;
    const { registry, clock } = this.o;
    // The root domain read on this connection while fresh: a replug (new DeviceID) or the slow refresh reads it again.
    const kept = registry.facet(IDENTITY).get(record.key);
    const cached = !stale && kept?.deviceId === device.deviceId && clock.monotonic() - kept.at < this.o.slowFactsRefreshMs ? kept : undefined;
    const known = cached?.root;
    const connection = registry.readings.asked(record.key, clock.monotonic());
    // The developer disk image with the root domain, and again at each inventory while it was not mounted.
    const readImage = !known || cached?.image === 'not-mounted';
    let result: ProbeResult;
    try {
      result = await probe(this.o.address, device, this.o.stepTimeoutMs, known, { readImage });
    } finally {
      // Whatever came of it, the phone is not being read any more: the planner may ask it again.
      registry.readings.settled(record.key, connection);
    }
    const image = result.kind === 'ok' ? (readImage ? result.values.developerImage : cached?.image) : undefined;
    if (result.kind === 'ok' && (!known || image !== cached?.image))
      registry.facet(IDENTITY).set(record.key, {
        deviceId: device.deviceId,
        root: known ?? result.values.root,
        amfi: result.values.amfi ?? cached?.amfi,
        at: cached?.at ?? clock.monotonic(),
        image,
      });
    return this.toInfo(record, result, cached?.amfi, image);
  }

  /** `knownAmfi`: the amfi domain read with the cached root domain, when this reading used the cache; `image`: the developer disk image as last read on this connection. */
  private toInfo(record: DeviceSnapshot, r: ProbeResult, knownAmfi?: Dict, image?: 'mounted' | 'not-mounted') {
    const { registry, clock, logger } = this.o;
    const udid = record.serial;
    const previous = registry.get(record.key)?.last;
    switch (r.kind) {
      case 'ok': {
        const info = iosDeviceInfo(udid, r.values);
        // Published with the answer, so that the features hearing of it judge this reading.
        registry.facet(READINESS_FACTS).set(record.key, pairedFacts(r.values.root, r.values.amfi ?? knownAmfi, image));
        // The relay's word on the battery comes with the slow read; between two, the last one stands.
        const wear = r.values.wear;
        if (wear) registry.facet(IOS_WEAR).set(record.key, { batteries: wear.battery ? [wear.battery] : [], unread: wear.unread });
        const note = registry.readings.answered(record.key, info, clock.wall(), clock.monotonic());
        if (note.recovered) limited(logger).info('iphone-inventory-recovered', { udid }, 'iPhone answers its inventory again', udid);
        return info;
      }
      case 'not-paired': {
        // It answered that it does not trust this host: a state, not a failure. Its udid is usbmuxd's name for it, by
        // which the views and the features find its record, as for a paired phone.
        registry.readings.identify(record.key, udid);
        registry.facet(READINESS_FACTS).set(record.key, unpairedFacts(r.public));
        if (registry.readings.noticed(record.key, r.detail)) {
          limited(logger).warn(
            'iphone-not-paired',
            { udid, err: r.detail },
            `iPhone ${udid} is not paired with this host: unlock it, tap Trust, then run \`idevicepair pair\``,
            udid,
          );
        }
        const pub = r.public ? iosDeviceInfo(udid, { root: r.public }) : undefined;
        return notPairedDeviceInfo(udid, r.detail, pub ?? previous);
      }
      case 'silent': {
        const note = registry.readings.failed(record.key, r.detail, clock.wall(), clock.monotonic());
        if (note.newProblem)
          limited(logger).warn(
            'iphone-inventory-problem',
            { udid, err: r.detail },
            // The same culprits and advice as the phone's message (inventory.ts): the phone (locked, hung) or usbmuxd, which listed it.
            `iPhone ${udid}: lockdown did not answer (${r.detail}); its last good inventory is reported. ` +
              'Unlock it; if it stays, unplug and replug it, or restart usbmuxd if every iPhone does this',
            udid,
          );
        return notAnsweringDeviceInfo(udid, r.detail, previous);
      }
    }
  }
}

import type { AdbClient } from '../adb/client.js';
import { ShellTimeoutError } from '../adb/errors.js';
import type { DeviceInfo } from '../../../cloud/types.js';
import type { Logger } from '../../../log/logger.js';
import { assembleDeviceInfo, type InventoryConfig } from './assemble.js';
import { parseUptimeSeconds } from './parsers/uptime.js';
import { props } from './probes/props.js';
import { probesOf } from './probes/registry.js';
import { TIERS, type Probe, type Tier } from './probes/types.js';
import type { Props } from './parsers/getprop.js';
import { tcpAddress } from '../../../util/tcp-serial.js';
import { buildInventoryScript, SECTION, splitSections } from './script.js';

export interface ProberOptions {
  timeoutMs: number;
  config: InventoryConfig;
  hiddenDevices: readonly string[];
  logger: Logger;
  /** How often the slow tier is read again (default 900 s). */
  slowFactsRefreshSeconds?: number;
  /**
   * Clock of the slow refresh (ms); injected by tests. Monotonic by default:
   * a wall-clock step back (a host whose RTC ran ahead, corrected by NTP)
   * would otherwise hold the slow facts for as long as the step.
   */
  now?: () => number;
  store?: TierCacheStore;
}

/**
 * Where the per-connection tier caches live: the agent keeps them in the
 * device registry's records (dropped with the connection); alone (tests,
 * benchmarks) the prober keeps them in a map.
 */
export interface TierCacheStore {
  get(serial: string): TierCache | undefined;
  set(serial: string, cache: TierCache): void;
  delete(serial: string): void;
}

export interface ProbeCounters {
  shellSessions: number;
  bytesRead: number;
  /** Inventories that read every tier (first of a connection, after a reboot). */
  fullReads: number;
}

/** What the last good reads of one connection left: section texts of the cached tiers. */
export interface TierCache {
  sections: Map<string, string>;
  /** When the slow tier was last read in full (ms, on the prober's clock). */
  slowReadAtMs: number;
  /** Set by invalidateSlow: read the slow tier at the next probe. */
  slowStale: boolean;
  /** Uptime of the last inventory, seconds: a smaller one means a reboot. */
  uptime?: number;
}

const CONNECTION_TIERS: readonly Tier[] = TIERS.filter((tier) => tier !== 'volatile');
const PROPS_GOOD = props.good ?? (() => true);

/**
 * Runs the inventory of one ready device: ONE shell session with the batched
 * script, of the tiers that are due (probes/types.ts). The first inventory of
 * a connection reads every tier; later ones read the volatile tier, plus the
 * slow tier every slowFactsRefreshSeconds or after invalidateSlow(). The
 * facts not re-read come from the last good read of their tier, so every
 * report carries every field. A reboot (uptime went down) forces a full read.
 */
export class DeviceProber {
  private readonly cache: TierCacheStore;
  private readonly scripts = new Map<string, string>();
  private readonly slowRefreshMs: number;
  private readonly now: () => number;
  readonly counters: ProbeCounters = { shellSessions: 0, bytesRead: 0, fullReads: 0 };

  constructor(
    private readonly adb: AdbClient,
    private readonly options: ProberOptions,
  ) {
    this.slowRefreshMs = (options.slowFactsRefreshSeconds ?? 900) * 1000;
    this.now = options.now ?? (() => performance.now());
    this.cache = options.store ?? new Map<string, TierCache>();
  }

  /** Drops what was cached for a connection that ended: the next probe reads every tier. */
  forget(serial: string): void {
    this.cache.delete(serial);
  }

  /**
   * The slow facts of a device may have changed (a package was installed or
   * removed, a setting changed): read them at its next probe.
   */
  invalidateSlow(serial: string): void {
    const entry = this.cache.get(serial);
    if (entry) entry.slowStale = true;
  }

  /**
   * Probes one device; throws only when nothing at all could be read (the
   * caller then keeps the device's last good inventory).
   */
  async probe(serial: string, state: string): Promise<DeviceInfo> {
    let entry = this.cache.get(serial);
    let run = await this.run(serial, this.dueTiers(entry));
    const uptime = uptimeOf(run.sections);
    if (entry?.uptime !== undefined && uptime !== undefined && uptime < entry.uptime) {
      // Rebooted between two inventories: nothing cached may still hold.
      this.cache.delete(serial);
      entry = undefined;
      run = await this.run(serial, TIERS);
    }
    entry = this.remember(serial, entry, run);
    const sections = new Map(run.sections);
    // The cache holds this run's good readings of the cached tiers and the
    // last good ones of those it did not read (or read badly).
    if (entry) for (const [name, text] of entry.sections) sections.set(name, text);
    // A property dump read in this run is parsed once, through a spy that
    // notes which properties the assembler asks for: the cache keeps only
    // those (a 20-50 KB dump becomes a few dozen lines).
    const dump = entry?.sections.get(SECTION.props) === run.sections.get(SECTION.props) ? run.sections.get(SECTION.props) : undefined;
    const parsed = dump === undefined ? undefined : props.parse(dump);
    const spy = parsed === undefined ? undefined : propertySpy(parsed);
    const info = assembleDeviceInfo({
      adbSerial: serial,
      adbState: state,
      sections,
      props: spy?.props,
      config: this.options.config,
      adbTunnelInfo: tunnelInfo(serial),
      observedAtMs: run.observedAtMs,
    });
    if (entry && spy) {
      const kept = spy.read.size > 0 ? [...spy.read].map(([key, value]) => `[${key}]: [${value}]`).join('\n') : dump!;
      entry.sections.set(SECTION.props, detached(kept));
    }
    info.isHidden = this.options.hiddenDevices.includes(info.udid);
    if (run.partial) {
      info.message = `the device stopped answering during the inventory after ${this.options.timeoutMs} ms; fields it did not report are left out. Replug or reboot the device if this repeats.`;
    }
    // Its strings are cut from the whole script output (up to 50 KB or more
    // per device); the caller keeps the record until the next inventory, so
    // it gets a copy that does not hold that output alive (measured: 19 MB
    // of heap at 200 devices).
    return JSON.parse(JSON.stringify(info)) as DeviceInfo;
  }

  private dueTiers(entry: TierCache | undefined): readonly Tier[] {
    if (entry === undefined) return TIERS;
    if (entry.slowStale || this.now() - entry.slowReadAtMs >= this.slowRefreshMs) return ['slow', 'volatile'];
    return ['volatile'];
  }

  private async run(serial: string, tiers: readonly Tier[]): Promise<Run> {
    const script = this.script(tiers);
    let output: string;
    let partial = false;
    this.counters.shellSessions++;
    if (tiers.length === TIERS.length) this.counters.fullReads++;
    try {
      const result = await this.adb.shell(serial, script, { timeoutMs: this.options.timeoutMs });
      this.counters.bytesRead += result.bytes;
      output = result.output;
    } catch (err) {
      if (!(err instanceof ShellTimeoutError) || !err.partial) throw err;
      // The sections the device finished before it hung are still good.
      output = err.partial;
      partial = true;
      this.counters.bytesRead += Buffer.byteLength(output);
    }
    const observedAtMs = Date.now();
    const sections = splitSections(output);
    if (sections.size === 0) throw new Error(`device ${serial} answered the inventory script with nothing usable`);
    return { tiers, sections, partial, observedAtMs };
  }

  /**
   * Keeps the cached tiers' sections of this run. A connection's cache starts
   * only once a run printed every connection and slow section, so that a
   * first read cut short by a timeout is read again in full next time; after
   * that, a section a run did not print keeps its last good text.
   */
  private remember(serial: string, entry: TierCache | undefined, run: Run): TierCache | undefined {
    const uptime = uptimeOf(run.sections);
    if (entry === undefined) {
      // Only a whole read starts the cache: a run the timeout cut short is
      // read in full again next time. A device that always garbles one
      // section still gets a cache (else it would be read in full forever).
      if (!run.tiers.includes('connection') || run.partial) return undefined;
      const props = run.sections.get(SECTION.props);
      if (props === undefined || !PROPS_GOOD(props)) return undefined;
      entry = { sections: new Map(), slowReadAtMs: this.now(), slowStale: false };
      this.cache.set(serial, entry);
    } else if (run.tiers.includes('slow')) {
      if (!run.partial) {
        entry.slowReadAtMs = this.now();
        entry.slowStale = false;
      }
    }
    for (const probe of probesOf(CONNECTION_TIERS)) {
      const text = run.sections.get(probe.section);
      if (text === undefined) continue;
      if (probe.good && !probe.good(text) && entry.sections.has(probe.section)) continue;
      // The property dump is cut down to what the assembler reads, and
      // detached, by probe() right after: copying all of it here first was
      // about 100 KB of garbage per device.
      entry.sections.set(probe.section, probe === props ? text : this.shrink(probe, text));
    }
    if (uptime !== undefined) entry.uptime = uptime;
    return entry;
  }

  /** What the cache keeps of a section (the property dump: see probe()). */
  private shrink(probe: Probe, text: string): string {
    return detached(probe.shrink ? probe.shrink(text) : text);
  }

  private script(tiers: readonly Tier[]): string {
    const key = tiers.join(',');
    let script = this.scripts.get(key);
    if (!script) {
      script = buildInventoryScript({ tiers, reachabilityHost: this.options.config.reachabilityHost });
      this.scripts.set(key, script);
    }
    return script;
  }
}

interface Run {
  tiers: readonly Tier[];
  sections: Map<string, string>;
  partial: boolean;
  observedAtMs: number;
}

/**
 * A copy that holds no reference to the string it was cut from. V8 keeps a
 * substring (a one-line section, split from the whole script output) as a
 * slice of its parent: cached as such, each device kept its whole output,
 * about 95 KB (measured: 19 MB of heap for 200 devices).
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** The properties, and a record of those read (with their values) through the returned view. */
function propertySpy(all: Props): { props: Props; read: Map<string, string> } {
  const read = new Map<string, string>();
  const props = new Proxy(all, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof key === 'string' && typeof value === 'string' && Object.hasOwn(target, key)) read.set(key, value);
      return value;
    },
  });
  return { props, read };
}

function uptimeOf(sections: Map<string, string>): number | undefined {
  const text = sections.get(SECTION.uptime);
  return text === undefined ? undefined : parseUptimeSeconds(text);
}

/** A device reached over TCP (adb connect) is described by its host and port. */
function tunnelInfo(serial: string): Record<string, unknown> | undefined {
  const address = tcpAddress(serial);
  return address ? { ...address } : undefined;
}

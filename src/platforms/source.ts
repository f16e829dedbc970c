// The one interface a platform plugs in through (node_exporter's collectors): a source lists its devices into the
// registry and inventories them when asked. Registered in src/agent/platforms.ts; what a platform alone knows it gives
// as its own metrics and health problems, so nothing above names a platform.
import type { OffListMode } from '../devices/off-source.js';
import type { EventEmitter } from 'node:events';
import type { DeviceInfo } from '../cloud/types.js';
import type { PresenceEntry, PresenceKind } from '../devices/presence.js';
import type { Platform } from '../devices/record.js';
import type { DeviceSnapshot } from '../devices/snapshot.js';
import type { Metric } from '../util/metric.js';

/**
 * The platform's service does not answer: a one-shot command goes on without its devices, saying so; a collect's
 * devices are carried as a failed collect's, the source having said so in its own line.
 */
export class SourceUnreachableError extends Error {
  override readonly name = 'SourceUnreachableError';
  constructor(
    message: string,
    /** What it means for the command: which devices are not listed. */
    readonly consequence: string,
  ) {
    super(message);
  }
}

/** Which ready devices get a fresh inventory: all, or only these record keys. */
type Refresh = 'all' | ReadonlySet<string>;

export interface CollectRequest {
  refresh: Refresh;
  /** Record keys not to inventory now whatever refresh says (their inventories keep failing). */
  hold?: ReadonlySet<string>;
  /** Wait for every inventory the request started (each under its deadline), for a one-shot command; else the report wait. */
  waitForAll?: boolean;
}

/** Whether the request asks a ready device afresh: refresh names it, or it was never read nor tried (nor is now); never one held. */
export function asks({ refresh, hold }: CollectRequest, r: DeviceSnapshot) {
  return !hold?.has(r.key) && (refresh === 'all' || refresh.has(r.key) || (r.last === undefined && r.failure === undefined && !r.probing));
}

/** A change in a platform service's own listing, by its serial (adb's serial, the iPhone's udid). */
export interface ListingChange {
  serial: string;
  /** undefined: the device was not known before (plugged). */
  from?: string;
  /** undefined: the device is gone (unplugged). */
  to?: string;
}

/** A device changed in a source's listing: appeared (from undefined), changed state, or went (to undefined). */
export type SourceChange = ListingChange & { key: string };

export interface SourceEvents {
  /** The listing changed. */
  change: [changes: SourceChange[]];
  /** The service connected (at start or again): its listing is complete only settleMs later (devices may be enumerating). */
  connected: [settleMs: number];
  /** The service came back after it went away; the same devices may be listed, but inventories were cut off. */
  resumed: [];
  /** An inventory the last report did not wait for answered, for a device not yet shown ready: news worth a report. */
  news: [key: string];
}

/** One device of a source's collect: the source's own word, and the record it says it of. */
export interface SourceDevice {
  /** The record's key (platform/serial). */
  key: string;
  info: DeviceInfo;
}

export interface DeviceSource extends EventEmitter<SourceEvents> {
  readonly platform: Platform;
  /** A name for logs and doctor: the service and its address. */
  readonly label: string;
  /** The label as the start line gives it, with what is there now where that matters (no usbmuxd socket yet). */
  whereNow?(): string;
  /** Starts following the platform's devices (the daemon). */
  start(): Promise<void>;
  stop(): void;
  /** Lists the devices present now into the registry, once; throws the unreachable error when the service does not answer. */
  listOnce(): Promise<void>;
  /** Whether the last listing can be trusted as complete: a device absent from it is gone. */
  readonly listed: boolean;
  /**
   * Whether its service has answered a listing since the agent started
   * (usbmuxd: once; none: as `listed` says). Until then a device an earlier
   * run reported that the source does not list is not known gone: the report
   * carries it (src/report/reporter.ts).
   */
  readonly answered?: boolean;
  /**
   * Whether it lists a device that has not said who it is yet (a network phone before its first answer on the
   * connection): until it does, any device of the platform it does not list may be that one, and is not called gone.
   */
  readonly naming?: boolean;
  readonly lastError?: string;
  /** The devices as the source says them: the inventories the request asks for, every record described from what is known. */
  collect(request: CollectRequest): Promise<SourceDevice[]>;
  /**
   * The presence kinds the source owes of its own, and the entries its last collect owes (devices there though nothing
   * of theirs answers), scoped by record key. Written to the ledger after each answer as the source's whole word, and
   * ended when it fails: carried only while it answers.
   */
  readonly owes?: readonly PresenceKind[];
  owed?(): readonly PresenceEntry[];
  /** Read the slow facts again at the next inventory (an operator asked for a full report). */
  invalidateSlow(): void;
  /** The state in which the platform's service says a device answers an inventory (adb's `device`, usbmuxd's `attached`). */
  readonly readyState: string;
  /** Whether failures count shell sessions that did not answer (adb's), as health's shell_unresponsive rule reads them. */
  readonly failuresAreShellSessions?: boolean;
  /** What keeps the host from reporting this platform's devices now (/healthz): none when all is well. */
  problems?(): string[];
  /** The platform's own series for /metrics (its service's round trip, its counters). */
  metrics?(): Metric[];
}

/** How a platform's devices are named: the cloud's DeviceInfo.platformName, and the name people read (`list`, /metrics). */
export interface PlatformName {
  readonly platformName: string;
  readonly shown: string;
  /** Its devices for people, in the commands' help: "Android phones", "iPhones". */
  readonly phones?: string;
  /** What lists its phones over USB, and why the kernel may have one on a port it does not list, in a message's words. */
  readonly offList?: OffListWords;
}

/** One interface a USB device offers, as sysfs shows it: bInterfaceClass, bInterfaceSubClass and bInterfaceProtocol, two hex digits each ("ff"). */
export interface UsbInterface {
  readonly class: string;
  readonly subclass: string;
  readonly protocol: string;
}

/** How a platform words a phone the kernel has on a port that its source does not list. */
interface OffListWords {
  /** What lists its phones (adb, usbmuxd): what cannot reach one off the list. */
  readonly source: string;
  /** Why a phone may be off that list, and what to do, when nothing more is known. */
  readonly causes: string;
  /** What the interfaces the phone offers on its port tell more, with the words for it; undefined when they tell nothing more. */
  readonly byInterfaces?: (interfaces: readonly UsbInterface[]) => { mode: OffListMode; causes: string } | undefined;
}

// The phones' timeline: what the witness of each fact said of each phone and of the host, in one store that every view
// folds. The sources' word on a phone is the registry's (records and readings, written only by them); here are the
// rest: whether each platform's service answers (its source's word), whether reports reach the cloud and what it
// stored of each phone (the report's), and what each feature concluded of a phone (its verdict, standing until it says
// another). A reader never derives a verdict again from another's wire field: it reads the verdict here.
import { EventEmitter } from 'node:events';
import { STATUS_UNPLUGGED, type DeviceInfo, type FailedDevice } from '../cloud/types.js';
import type { Layer } from './phone-state.js';
import type { Platform } from './record.js';

/** What a feature concluded of a phone, standing until it says otherwise. */
export interface Verdict {
  /** Out of service for it, and the layer blamed: needing a person (its readiness, a hot battery), or quarantined. */
  out?: { state: 'needs_person' | 'quarantined'; layer: Layer };
  /** The report sends it UNAVAILABLE. */
  unavailable?: true;
  /** Automation cannot run on it (support.appiumDisabled). */
  appiumOff?: true;
  /** The agent's own words for its message. */
  words?: string;
}

/** A verdict's owner (verdicts.ts declares them all, in the order their words join a message), and the detail its views read. */
export interface VerdictKey<D = never> {
  readonly name: string;
  readonly order: number;
  /** Carries D only for the type checker. */
  readonly _detail?: (detail: D) => void;
}

/** A verdict as its owner writes it: what it says of the phone, and its own detail for the views (a readiness verdict's checks). */
export type Judged<D> = Verdict & { detail?: D };

/** One fact as the timeline hears it, in order: the host's with its monotonic ms, a feature's verdict as it changes. */
export type Fact =
  | { kind: 'service'; platform: Platform; up: boolean; at: number }
  | { kind: 'starved'; since: number | undefined; at: number }
  | {
      kind: 'cloud';
      delivered: true;
      refused: readonly FailedDevice[];
      /** The phones whose stored status or refusal this report changed, with the cloud's word on each now. */
      changed: ReadonlyArray<{ udid: string; status: string; refused?: string }>;
      at: number;
    }
  | { kind: 'cloud'; delivered: false; why: string; at: number }
  | { kind: 'verdict'; udid: string; by: string; verdict: Verdict | undefined };

interface Owned {
  owner: VerdictKey<unknown>;
  verdict: Judged<unknown>;
}

export class Timeline extends EventEmitter<{ fact: [fact: Fact] }> {
  /** Each platform's service: since when it has been down (monotonic ms), and when it last dropped, even if back. */
  private readonly down = new Map<Platform, number>();
  private readonly dropped = new Map<Platform, number>();
  /** Since when reports have not reached the cloud; undefined while the last one did. */
  private behind: number | undefined;
  private starved: number | undefined;
  /**
   * The cloud's last word, its one store: each device as the cloud holds it (its record in the last delivered report that
   * carried it, an UNPLUGGED one included; an earlier run's until then), and the phones the last report had refused.
   */
  private told = new Map<string, DeviceInfo>();
  /** The udids the last delivered report carried: the cloud holds one it left out offline (its node stopped reporting it), and one only an earlier run told is not this run's word. */
  private carried = new Set<string>();
  private refusedNow = new Map<string, string>();
  private readonly verdicts = new Map<string, Map<string, Owned>>();
  /** A verdict changed since a report last folded them: the change a report already carries wakes no other. */
  private changedSinceFold = false;

  /** The platform's service answers again, or stopped answering (its source's word), at monotonic `at`. */
  service(platform: Platform, up: boolean, at: number) {
    if (up === !this.down.has(platform)) return;
    if (up) this.down.delete(platform);
    else {
      this.down.set(platform, at);
      this.dropped.set(platform, at);
    }
    this.emit('fact', { kind: 'service', platform, up, at });
  }

  /** Since when the platform's service has been down; undefined while it answers (or was never heard of). */
  downSince(platform: Platform) {
    return this.down.get(platform);
  }

  /** When the platform's service last dropped, even if it is back: a restart quicker than anything looked is seen by it. */
  droppedAt(platform: Platform) {
    return this.dropped.get(platform);
  }

  /** Inventories fail together since `since` (the host's fault: src/devices/starved.ts), or no longer (undefined). */
  starving(since: number | undefined, at: number) {
    if (since === this.starved) return;
    this.starved = since;
    this.emit('fact', { kind: 'starved', since, at });
  }

  /** Since when inventories have been failing together; undefined while they are not. */
  get starvedSince() {
    return this.starved;
  }

  /**
   * A report reached the cloud: the devices its body carried, and those it refused. `complete`: the body carried every
   * device the cloud holds of this host, so one it did not carry is no longer held (as the report's ledger composed it).
   */
  delivered(devices: readonly DeviceInfo[], refused: readonly FailedDevice[], at: number, complete = true) {
    this.behind = undefined;
    const before = { told: this.told, refused: this.refusedNow };
    this.told = complete ? new Map<string, DeviceInfo>() : new Map(before.told);
    for (const d of devices) this.told.set(d.udid, d);
    const carried = (this.carried = new Set(devices.map((d) => d.udid)));
    this.refusedNow = new Map(refused.filter((f) => carried.has(f.udid)).map((f) => [f.udid, f.message]));
    const changed = devices.flatMap(({ udid, status }) => {
      const no = this.refusedNow.get(udid);
      return before.told.get(udid)?.status === status && before.refused.get(udid) === no ? [] : [{ udid, status, ...(no !== undefined && { refused: no }) }];
    });
    this.emit('fact', { kind: 'cloud', delivered: true, refused, changed, at });
  }

  /** What an earlier run last told the cloud, for the devices no report of this run has carried yet. */
  seed(devices: readonly DeviceInfo[]) {
    for (const d of devices) if (!this.told.has(d.udid)) this.told.set(d.udid, d);
  }

  /** A report did not reach the cloud. */
  notDelivered(why: string, at: number) {
    this.behind ??= at;
    this.emit('fact', { kind: 'cloud', delivered: false, why, at });
  }

  /** Since when reports have not reached the cloud (the first that failed since one was delivered); undefined while they do. */
  get cloudBehindSince() {
    return this.behind;
  }

  /** The device as the cloud holds it, UNPLUGGED included; undefined when no report told it of the device (or one dropped it). */
  toldOf(udid: string) {
    return this.told.get(udid);
  }

  /**
   * The status the cloud shows of the phone: what the last delivered report told it, UNPLUGGED included; undefined when that
   * report left it out (a list not complete yet keeps its record here, but the cloud holds it offline) or before one told it.
   */
  storedStatus(udid: string): string | undefined {
    return this.carried.has(udid) ? this.told.get(udid)?.status : undefined;
  }

  /** The devices the cloud holds present: the last word on each was not UNPLUGGED. */
  get present() {
    return [...this.told.values()].filter((d) => d.status !== STATUS_UNPLUGGED);
  }

  /** Why the cloud refused the phone in the last report it took; undefined when it stored it. */
  refused(udid: string) {
    return this.refusedNow.get(udid);
  }

  /** A feature's verdict on a phone, standing until it says another; undefined withdraws it. Heard only when it changes. */
  verdict<D>(udid: string, owner: VerdictKey<D>, verdict: Judged<D> | undefined) {
    const mine = this.verdicts.get(udid);
    const was = mine?.get(owner.name);
    if (sameVerdict(was?.verdict, verdict)) {
      // The same word on the phone; its owner's detail may say more (a check now read).
      if (was && verdict) was.verdict = verdict;
      return;
    }
    if (verdict === undefined) {
      mine?.delete(owner.name);
      if (mine?.size === 0) this.verdicts.delete(udid);
    } else {
      let map = mine;
      if (!map) this.verdicts.set(udid, (map = new Map<string, Owned>()));
      map.set(owner.name, { owner: owner as VerdictKey<unknown>, verdict });
    }
    this.changedSinceFold = true;
    this.emit('fact', { kind: 'verdict', udid, by: owner.name, verdict });
  }

  /** A report folded the verdicts standing now into what it tells the cloud. */
  folded() {
    this.changedSinceFold = false;
  }

  /** Whether a verdict changed since a report last folded them: what the cloud was told is behind the agent's word. */
  get unfolded() {
    return this.changedSinceFold;
  }

  /** The verdicts standing on a phone, in their owners' order. */
  verdictsOf(udid: string): Verdict[] {
    const mine = this.verdicts.get(udid);
    if (!mine) return [];
    return [...mine.values()].sort((a, b) => a.owner.order - b.owner.order).map((o) => o.verdict);
  }

  /** One owner's verdict on a phone, with its detail, when it has one. */
  verdictBy<D>(udid: string, owner: VerdictKey<D>) {
    return this.verdicts.get(udid)?.get(owner.name)?.verdict as Judged<D> | undefined;
  }
}

function sameVerdict(a: Verdict | undefined, b: Verdict | undefined) {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.out?.state === b.out?.state && a.out?.layer === b.out?.layer && a.unavailable === b.unavailable && a.appiumOff === b.appiumOff && a.words === b.words
  );
}

// The phones' timeline: what the witness of each fact said of each phone and of the host, in one store that every view
// folds. The sources' word on a phone is the registry's (records and readings, written only by them); here are the
// rest: whether each platform's service answers (its source's word), whether reports reach the cloud and what it
// stored of each phone (the report's), and what each feature concluded of a phone (its verdict, standing until it says
// another). A reader never derives a verdict again from another's wire field: it reads the verdict here.
import { EventEmitter } from 'node:events';
import type { FailedDevice } from '../cloud/types.js';
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

/** A verdict's owner: its feature's name, and where its words stand in a phone's message (smaller first). */
export interface VerdictOwner {
  readonly name: string;
  readonly order: number;
}

/** One fact as the timeline hears it, with its monotonic ms; listeners hear each once, in order. */
export type Fact = { at: number } & (
  | { kind: 'service'; platform: Platform; up: boolean }
  | { kind: 'cloud'; delivered: true; stored: ReadonlyMap<string, string>; refused: readonly FailedDevice[] }
  | { kind: 'cloud'; delivered: false; why: string }
  | { kind: 'verdict'; udid: string; by: string; verdict: Verdict | undefined }
);

interface Owned {
  owner: VerdictOwner;
  verdict: Verdict;
  at: number;
}

export class Timeline extends EventEmitter<{ fact: [fact: Fact] }> {
  /** Each platform's service: since when it has been down (monotonic ms), and when it last dropped, even if back. */
  private readonly down = new Map<Platform, number>();
  private readonly dropped = new Map<Platform, number>();
  /** Since when reports have not reached the cloud; undefined while the last one did. */
  private behind: number | undefined;
  /** What the cloud stored of each phone in the last report it took (its status), and the phones it refused then. */
  private stored = new Map<string, string>();
  private refusedNow = new Map<string, string>();
  private readonly verdicts = new Map<string, Map<string, Owned>>();

  /** The platform's service answers again, or stopped answering (its source's word), at monotonic `at`. */
  service(platform: Platform, up: boolean, at: number): void {
    if (up === !this.down.has(platform)) return;
    if (up) this.down.delete(platform);
    else {
      this.down.set(platform, at);
      this.dropped.set(platform, at);
    }
    this.emit('fact', { kind: 'service', platform, up, at });
  }

  /** Since when the platform's service has been down; undefined while it answers (or was never heard of). */
  downSince(platform: Platform): number | undefined {
    return this.down.get(platform);
  }

  /** When the platform's service last dropped, even if it is back: a restart quicker than anything looked is seen by it. */
  droppedAt(platform: Platform): number | undefined {
    return this.dropped.get(platform);
  }

  /** A report reached the cloud: what it stored of each phone the body carried (udid -> status), and what it refused. */
  delivered(stored: ReadonlyMap<string, string>, refused: readonly FailedDevice[], at: number): void {
    this.behind = undefined;
    this.stored = new Map(stored);
    this.refusedNow = new Map(refused.filter((f) => stored.has(f.udid)).map((f) => [f.udid, f.message]));
    this.emit('fact', { kind: 'cloud', delivered: true, stored, refused, at });
  }

  /** A report did not reach the cloud. */
  notDelivered(why: string, at: number): void {
    this.behind ??= at;
    this.emit('fact', { kind: 'cloud', delivered: false, why, at });
  }

  /** Since when reports have not reached the cloud (the first that failed since one was delivered); undefined while they do. */
  get cloudBehindSince(): number | undefined {
    return this.behind;
  }

  /** The status the cloud stored of the phone in the last report it took; undefined when that report did not carry it. */
  storedStatus(udid: string): string | undefined {
    return this.stored.get(udid);
  }

  /** Why the cloud refused the phone in the last report it took; undefined when it stored it. */
  refused(udid: string): string | undefined {
    return this.refusedNow.get(udid);
  }

  /** A feature's verdict on a phone, standing until it says another; undefined withdraws it. Heard only when it changes. */
  verdict(udid: string, owner: VerdictOwner, verdict: Verdict | undefined, at: number): void {
    const mine = this.verdicts.get(udid);
    const was = mine?.get(owner.name);
    if (sameVerdict(was?.verdict, verdict)) return;
    if (verdict === undefined) {
      mine?.delete(owner.name);
      if (mine?.size === 0) this.verdicts.delete(udid);
    } else {
      let map = mine;
      if (!map) this.verdicts.set(udid, (map = new Map()));
      map.set(owner.name, { owner, verdict, at });
    }
    this.emit('fact', { kind: 'verdict', udid, by: owner.name, verdict, at });
  }

  /** The verdicts standing on a phone, in their owners' order. */
  verdictsOf(udid: string): Verdict[] {
    const mine = this.verdicts.get(udid);
    if (!mine) return [];
    return [...mine.values()].sort((a, b) => a.owner.order - b.owner.order).map((o) => o.verdict);
  }

  /** One owner's verdict on a phone, when it has one. */
  verdictBy(udid: string, owner: string): Verdict | undefined {
    return this.verdicts.get(udid)?.get(owner)?.verdict;
  }

  /** The phones some owner has a verdict on. */
  judged(): string[] {
    return [...this.verdicts.keys()];
  }
}

function sameVerdict(a: Verdict | undefined, b: Verdict | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.out?.state === b.out?.state &&
    a.out?.layer === b.out?.layer &&
    a.unavailable === b.unavailable &&
    a.appiumOff === b.appiumOff &&
    a.words === b.words
  );
}

// The presence ledger (issue 41): the one place that answers "report this
// device, with which inventory, why, until when" for a device the agent
// still owes the cloud while nothing answers for it now. A device absent
// from a report goes out UNPLUGGED (src/report/unplugged.ts), so whoever
// knows a device is still there though unread writes an entry here, with
// the inventory to send, a reason from a closed list, and a bound; the
// report asks the ledger once which devices to carry. Below the platforms
// and the features, so that both may write to it and neither imports the
// other. The decisions are pure functions; the class only keeps the entries.
import type { DeviceInfo } from '../cloud/types.js';

/**
 * Why a device is carried while nothing reads it now, one kind per way it
 * can happen; `scope` names what the entry is about, so that its writer
 * can replace or end it (a source's name, a device's stable key).
 */
export type PresenceReason =
  /** A phone back on a new connection whose inventory has not answered yet. */
  | { kind: 'unanswered'; scope: string }
  /** A network phone whose transport dropped or was kicked, not yet identified again. */
  | { kind: 'network-dropped'; scope: string }
  /** A phone whose hub port charge control switched off on purpose. */
  | { kind: 'charge-paused'; scope: string }
  /** A source that threw or did not answer in time: its devices keep their last known state. */
  | { kind: 'source-failed'; scope: string }
  /** A phone its source no longer lists while the kernel still has it on a USB port. */
  | { kind: 'off-source'; scope: string };

export type PresenceKind = PresenceReason['kind'];

/**
 * The order in which reasons win when two entries carry the same udid: the
 * one nearest the device's own reading first (its source's last word), the
 * one furthest from it last.
 */
export const PRESENCE_ORDER: readonly PresenceKind[] = ['source-failed', 'unanswered', 'charge-paused', 'network-dropped', 'off-source'];

/**
 * Whether a reason's inventory stands for its source's reading now (a failed
 * source's last word), which health judges like a fresh one, or is a device
 * held off its source (a charge pause, a phone off adb), whose last reading
 * is not a new one to judge: the report joins the first before health and
 * the second after it, as each joined before the ledger.
 */
export function judgedByHealth(reason: PresenceReason): boolean {
  return reason.kind === 'source-failed' || reason.kind === 'unanswered' || reason.kind === 'network-dropped';
}

/**
 * Until when an entry holds: a deadline on the injected monotonic clock,
 * past which it is dropped whatever its writer says; or while a condition
 * its writer follows holds, which the writer ends by writing the entry again
 * without the device.
 */
export type PresenceBound = { until: number } | { while: string };

/** One writer's word for one reason and scope: these devices, so bounded. */
export interface PresenceEntry {
  reason: PresenceReason;
  /** The inventories to report, as the writer worded them (status, message). */
  devices: readonly DeviceInfo[];
  bound: PresenceBound;
}

/** What the ledger answers a report. */
export interface Carried {
  /** The owed devices the report does not hold, each with the reason it is carried. */
  carried: Array<{ info: DeviceInfo; reason: PresenceReason }>;
  /** The entries past their bound, dropped now: their devices go UNPLUGGED unless present. */
  expired: PresenceEntry[];
}

/** Whether an entry's bound has passed at monotonic `now`. */
export function expired(bound: PresenceBound, now: number): boolean {
  return 'until' in bound && now >= bound.until;
}

/**
 * Which owed devices a report carries: an entry within its bound adds each
 * of its devices whose udid the report does not hold and no entry of an
 * earlier reason (PRESENCE_ORDER) carries; within one entry, its devices as
 * its writer listed them. Pure.
 */
export function carry(entries: readonly PresenceEntry[], present: readonly DeviceInfo[], now: number): Carried {
  const held = new Set(present.map((d) => d.udid));
  const live = entries.filter((e) => !expired(e.bound, now));
  const ordered = PRESENCE_ORDER.flatMap((kind) => live.filter((e) => e.reason.kind === kind));
  const carried: Carried['carried'] = [];
  for (const entry of ordered) {
    const added: string[] = [];
    for (const info of entry.devices) {
      if (held.has(info.udid)) continue;
      carried.push({ info, reason: entry.reason });
      added.push(info.udid);
    }
    for (const udid of added) held.add(udid);
  }
  return { carried, expired: entries.filter((e) => expired(e.bound, now)) };
}

/** An entry's place in the ledger: one per reason and scope. */
function slot(reason: PresenceReason): string {
  return `${reason.kind}\u0000${reason.scope}`;
}

/**
 * The entries the agent owes the cloud now, one per reason and scope. Its
 * writers (the failed-source fallback in src/report/execute.ts, charge
 * control's pauses in src/features/charge/paused-report.ts) say
 * their whole word for a reason and scope at once with `owe`; a source's
 * own entries (the Android source's remembered network phones) are written
 * by execute.ts with `replace`, its whole word after each answer; the report
 * asks `report` once, on its clock.
 */
export class PresenceLedger {
  private readonly entries = new Map<string, PresenceEntry>();
  /** The reason each device the last report carried was carried for, by udid: what `carries` answers. */
  private lastCarried = new Map<string, PresenceKind>();

  /** These devices are owed for this reason and scope, so bounded, and no other; none: the entry ends. */
  owe(reason: PresenceReason, devices: readonly DeviceInfo[], bound: PresenceBound): void {
    if (devices.length === 0) this.entries.delete(slot(reason));
    else this.entries.set(slot(reason), { reason, devices: [...devices], bound });
  }

  /**
   * One writer's whole word for these kinds within the scopes it names
   * (`owner/...`, a source's record keys): these entries, and none other of
   * its; none: all of its entries of these kinds end.
   */
  replace(owner: string, kinds: readonly PresenceKind[], entries: readonly PresenceEntry[]): void {
    for (const [at, entry] of this.entries) if (kinds.includes(entry.reason.kind) && entry.reason.scope.startsWith(`${owner}/`)) this.entries.delete(at);
    for (const entry of entries) this.owe(entry.reason, entry.devices, entry.bound);
  }

  /** The entry of this reason and scope ends: its devices are no longer owed for it. */
  end(reason: PresenceReason): void {
    this.entries.delete(slot(reason));
  }

  /** The devices a report holding `present` carries besides them, at monotonic `now`; the entries past their bound are dropped. */
  report(present: readonly DeviceInfo[], now: number): Carried {
    const answer = carry([...this.entries.values()], present, now);
    for (const entry of answer.expired) this.entries.delete(slot(entry.reason));
    this.lastCarried = new Map(answer.carried.map((c) => [c.info.udid, c.reason.kind]));
    return answer;
  }

  /**
   * Whether the last report carried this device (by udid) for this kind:
   * worded by that writer, which its own annotate pass leaves alone. By udid,
   * not by object, so that a feature that copies every device on the way
   * does not hide which were carried from those after it.
   */
  carries(info: Pick<DeviceInfo, 'udid'>, kind: PresenceKind): boolean {
    return this.lastCarried.get(info.udid) === kind;
  }

  /**
   * Whether a writer owes this scope (a record key) for a reason nearer the
   * device than `kind` (earlier in PRESENCE_ORDER), within its bound at
   * monotonic `now`: that writer words the device, so one owing it for
   * `kind` leaves it alone (the Android source a remembered network phone
   * whose port charge control switched off on purpose).
   */
  owesBefore(kind: PresenceKind, scope: string, now: number): boolean {
    const nearer = PRESENCE_ORDER.slice(0, PRESENCE_ORDER.indexOf(kind));
    for (const entry of this.entries.values())
      if (entry.reason.scope === scope && nearer.includes(entry.reason.kind) && entry.devices.length > 0 && !expired(entry.bound, now)) return true;
    return false;
  }

  /** The entries held now, for a test or a view. */
  owed(): PresenceEntry[] {
    return [...this.entries.values()];
  }
}

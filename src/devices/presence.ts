// The presence ledger: the one place that answers "report this device, why, until when" for a device the agent still
// owes the cloud while nothing answers for it. An absent device goes out UNPLUGGED, so whoever knows one is still there
// writes an entry: the device, a reason from a closed list, and a bound. The report asks once which devices to carry;
// their inventories are the readings', never the ledger's. Below platforms and features, so both may write it. The
// decisions are pure; the class only keeps the entries.
import { composeMessage, withNotes, withoutMessage } from '../cloud/device-message.js';
import type { DeviceInfo } from '../cloud/types.js';

/** Why a device is carried while nothing reads it, one kind per way. */
export type PresenceKind =
  /** A phone back on a new connection whose inventory has not answered yet. */
  | 'unanswered'
  /** A network phone whose transport dropped or was kicked, not yet identified again. */
  | 'network-dropped'
  /** A phone whose hub port charge control switched off on purpose. */
  | 'charge-paused'
  /** A source that threw or did not answer in time: its devices keep their last known state. */
  | 'source-failed'
  /** A phone its source no longer lists while the kernel still has it on a USB port. */
  | 'off-source'
  /**
   * A device the cloud was last told of (an earlier run's, from the state
   * directory) that its source does not list while absence cannot call it
   * gone: the source has not answered since the agent started, or its list
   * is not complete yet. Its inventory is what the cloud was told.
   */
  | 'unlisted';

/** A kind and its writer's scope: `scope` lets its writer replace or end it. */
export interface PresenceReason {
  kind: PresenceKind;
  scope: string;
}

/** Which reason wins when two carry one udid: nearest the device's own reading first (its source's last word). */
export const PRESENCE_ORDER: readonly PresenceKind[] = ['source-failed', 'unanswered', 'charge-paused', 'network-dropped', 'off-source', 'unlisted'];

/**
 * Whether a reason's inventory stands for its source's reading now (a failed source's last word), which health judges
 * like a fresh one, or is a device held off its source, whose last reading is not new: joined after health.
 */
export function judgedByHealth(reason: PresenceReason) {
  return reason.kind === 'source-failed' || reason.kind === 'unanswered' || reason.kind === 'network-dropped';
}

/** Until when an entry holds: a monotonic deadline, or while a condition its writer follows holds (ended by rewriting). */
export type PresenceBound = { until: number } | { while: string };

/** A device a writer owes, and what it says of it over its last inventory. */
export interface OwedDevice {
  udid: string;
  /** The record key its last inventory was given on, when the writer knows it (src/devices/readings.ts, `inventoryOf`). */
  key?: string;
  /** What the writer says anew over that inventory: its state and status now (and the tunnel a twin handed it). */
  says?: Partial<Pick<DeviceInfo, 'state' | 'status' | 'adbTunnelInfo'>>;
  /** Why, said from nothing in place of the inventory's own message; none: the inventory's own stands. */
  why?: string;
  /** Said after that (a failed source's cause, the features' notes). */
  notes?: readonly string[];
  /** The ledger holds no inventory: a device record handed in place of an owed device does not type-check. */
  serialNumber?: never;
}

/** One writer's word for one reason and scope: these devices, so bounded. */
export interface PresenceEntry {
  reason: PresenceReason;
  devices: readonly OwedDevice[];
  bound: PresenceBound;
}

/** A device's last inventory, as the report finds it for an owed device; none: it is not carried. */
export type InventoryOf = (device: OwedDevice) => DeviceInfo | undefined;

/** What the ledger answers a report. */
export interface Carried {
  /** The owed devices the report does not hold, each with its last inventory in its writer's words and the reason it is carried. */
  carried: Array<{ info: DeviceInfo; reason: PresenceReason }>;
  /** The entries past their bound, dropped now: their devices go UNPLUGGED unless present. */
  expired: PresenceEntry[];
}

/** Why the report carries each device it holds for the ledger, by udid: what a feature's annotate pass is handed. */
export type CarriedKinds = ReadonlyMap<string, PresenceKind>;

/** Whether an entry's bound has passed at monotonic `now`. */
export function expired(bound: PresenceBound, now: number) {
  return 'until' in bound && now >= bound.until;
}

/** An owed device as the report carries it; one held off its source drops the battery detail, as health does. */
export function worded(inventory: DeviceInfo, owed: OwedDevice, reason: PresenceReason): DeviceInfo {
  const { batteryDetail: _detail, ...held } = inventory;
  const base: DeviceInfo = judgedByHealth(reason) ? inventory : held;
  const said = owed.why === undefined ? base : { ...withoutMessage(base), ...composeMessage([owed.why]) };
  return withNotes({ ...said, ...owed.says }, owed.notes ?? []);
}

/**
 * Which owed devices a report carries: each device of an entry within its bound whose udid the report does not hold,
 * no earlier reason carries, and whose last inventory is known, in its writer's order. Pure.
 */
export function carry(entries: readonly PresenceEntry[], present: readonly DeviceInfo[], now: number, inventoryOf: InventoryOf): Carried {
  const held = new Set(present.map((d) => d.udid));
  const live = entries.filter((e) => !expired(e.bound, now));
  const ordered = PRESENCE_ORDER.flatMap((kind) => live.filter((e) => e.reason.kind === kind));
  const carried: Carried['carried'] = [];
  for (const entry of ordered) {
    const added: string[] = [];
    for (const owed of entry.devices) {
      const inventory = held.has(owed.udid) ? undefined : inventoryOf(owed);
      if (inventory === undefined) continue;
      carried.push({ info: worded(inventory, owed, entry.reason), reason: entry.reason });
      added.push(owed.udid);
    }
    for (const udid of added) held.add(udid);
  }
  return { carried, expired: entries.filter((e) => expired(e.bound, now)) };
}

/** Why each carried device is carried, by udid, as the annotate passes are handed it. */
export function kindsOf(carried: Carried['carried']): CarriedKinds {
  return new Map(carried.map((c) => [c.info.udid, c.reason.kind]));
}

/** An entry's place in the ledger: one per reason and scope. */
function slot(reason: PresenceReason) {
  return `${reason.kind}\u0000${reason.scope}`;
}

/**
 * The entries the agent owes the cloud now, one per reason and scope. Writers say their whole word for a reason and
 * scope with `owe` (the report too, for phones the cloud was told of that no source lists yet), or `replace` for a
 * source's own entries; the report asks `report` once, on its clock.
 */
export class PresenceLedger {
  private readonly entries = new Map<string, PresenceEntry>();

  /** These devices are owed for this reason and scope, so bounded, and no other; none: the entry ends. */
  owe(reason: PresenceReason, devices: readonly OwedDevice[], bound: PresenceBound) {
    if (devices.length === 0) this.entries.delete(slot(reason));
    else this.entries.set(slot(reason), { reason, devices: [...devices], bound });
  }

  /** One writer's whole word for these kinds within the scopes it names: these entries and none other of its. */
  replace(owner: string, kinds: readonly PresenceKind[], entries: readonly PresenceEntry[]) {
    for (const [at, entry] of this.entries) if (kinds.includes(entry.reason.kind) && entry.reason.scope.startsWith(`${owner}/`)) this.entries.delete(at);
    for (const entry of entries) this.owe(entry.reason, entry.devices, entry.bound);
  }

  /** The entry of this reason and scope ends: its devices are no longer owed for it. */
  end(reason: PresenceReason) {
    this.entries.delete(slot(reason));
  }

  /** The devices a report holding `present` carries besides them, at monotonic `now`; entries past their bound go. */
  report(present: readonly DeviceInfo[], now: number, inventoryOf: InventoryOf) {
    const answer = carry([...this.entries.values()], present, now, inventoryOf);
    for (const entry of answer.expired) this.entries.delete(slot(entry.reason));
    return answer;
  }

  /**
   * Whether a writer owes this scope for a reason earlier in PRESENCE_ORDER, within its bound: that writer words the
   * device, so one owing it for `kind` leaves it alone.
   */
  owesBefore(kind: PresenceKind, scope: string, now: number) {
    const nearer = PRESENCE_ORDER.slice(0, PRESENCE_ORDER.indexOf(kind));
    for (const entry of this.entries.values())
      if (entry.reason.scope === scope && nearer.includes(entry.reason.kind) && !expired(entry.bound, now)) return true;
    return false;
  }

  /** The entries held now, for a test or a view. */
  owed() {
    return [...this.entries.values()];
  }
}

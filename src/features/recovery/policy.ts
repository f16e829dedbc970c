// When to heal a device, decided without I/O: the caller passes the clock. Self-healing never disrupts other devices:
// it only reconnects offline devices, kicks one wedged transport, power-cycles one phone's hub port, or (re)connects a
// configured network device. It never restarts the adb server.
import { isDeepStrictEqual } from 'node:util';
import { CONNECT_TIMING, connectBackoff, FRESH, type BackoffIntent, type ConnectEntry, type ConnectTiming } from './connects.js';
import { isTcpSerial } from '../../util/tcp-serial.js';
import type { UsbBlame, UsbSeen } from '../../devices/usb-evidence.js';

/** Recovery's settings, and the connect backoff of `networkDevices` (ConnectTiming). */
export interface RecoverySettings extends ConnectTiming {
  /** Reconnect offline devices (`adb reconnect offline`). */
  reconnectOffline: boolean;
  offlineCooldownMs: number;
  /** Consecutive shell deadline misses of a ready device before its transport is kicked. */
  kickAfterFailures: number;
  kickCooldownMs: number;
  maxKicksPerHour: number;
  /** Power-cycle the hub port of a phone a kick or offline reconnects did not bring back, within the kick's cooldown and limit. */
  powerCycle: boolean;
}

/**
 * An offline phone's port is power-cycled once this many reconnects of one run have failed, the last a whole offline
 * cooldown ago: one failed reconnect can be a phone still booting; two, minutes apart, are a stuck port.
 */
export const OFFLINE_RECONNECTS_BEFORE_CYCLE = 2;
export const OFFLINE_COOLDOWNS_BEFORE_CYCLE = 2;

export const defaultRecoverySettings: RecoverySettings = {
  reconnectOffline: true,
  offlineCooldownMs: 60_000,
  kickAfterFailures: 3,
  kickCooldownMs: 5 * 60_000,
  maxKicksPerHour: 3,
  ...CONNECT_TIMING,
  powerCycle: false,
};

export type RecoveryAction =
  /** serials: the offline devices it is for; all: every offline USB device, so adb's host-wide command may run. */
  | { kind: 'reconnect-offline'; reason: string; serials: string[]; all: boolean }
  | { kind: 'kick'; serial: string; key: string; reason: string }
  /** listed: adb's state of the address when the connect was planned (undefined: adb does not list it). */
  | { kind: 'connect'; address: string; reason: string; listed: string | undefined }
  /** usbPort: the phone's USB port path, when the USB layer knows it: the kernel log must show it drop and come back. */
  | { kind: 'power-cycle'; serial: string; key: string; hub: string; port: number; reason: string; usbPort?: string }
  /** Not an action: recovery cannot help; the phone's message asks for a person. quiet: the hub's line says it (hub-lost). */
  | { kind: 'needs-person'; serial: string; key: string; reason: string; quiet?: boolean }
  /** Not an action: several phones of one hub lost together, at every look while the episode lasts; recovery says it once per episode (one line, one count), not once per phone. */
  | { kind: 'hub-lost'; hub: string; serials: string[]; reason: string };

/** The disruptive actions, which the booking gate is asked about. */
export type Disruption = 'reconnect-offline' | 'kick' | 'power-cycle';

/** A disruption due for a device, which the booking gate must let through before it is planned. */
interface DueDisruption {
  /** The device's key (its serial when it has none). */
  key: string;
  serial: string;
  action: Disruption;
}

/**
 * What a tick decides on besides the devices, as values: `cleared`, the disruptions let through by device key ('all':
 * every one); `portOff`, the serials whose hub port charge control holds off (not connected again until it is on).
 */
interface TickInput {
  cleared?: ReadonlyMap<string, ReadonlySet<Disruption>> | 'all';
  portOff?: ReadonlySet<string>;
  /** When the last offline reconnect started (the runner's counted start), while within a whole offline cooldown. */
  lastOfflineReconnect?: number;
  /** The connect backoff of each configured address (connects.ts), as recovery keeps it; an address left out has had no connect yet. */
  connects?: ReadonlyMap<string, Readonly<ConnectEntry>>;
}

/** The runner's target of the host's offline reconnect, whose counted start the offline cooldown decides from. */
export const OFFLINE_RECONNECT_TARGET = 'reconnect-offline';

/** Phones of one hub whose ports dropped this close together were lost together (the USB layer's "at once"). */
export const LOST_TOGETHER_MS = 10 * 60_000;

/** The layers whose verdict on a port covers every phone behind it: no phone of them is helped one by one. */
const WIDE_LAYERS = new Set(['controller', 'hub-power', 'hub']);

/** The USB layer's blame of a phone's port, when it blames a layer wider than the phone. */
const wideBlame = ({ blame }: { blame?: UsbBlame }) => (blame && WIDE_LAYERS.has(blame.layer) ? blame : undefined);

/** What the policy reads of a device's registry record. */
export interface ListedDevice {
  serial: string;
  state: string;
  /** The registry's key; the serial when absent. */
  key?: string;
  /** Consecutive failed inventories (the registry's one count). */
  failures?: number;
  /** Monotonic ms of the first failure of the current run. */
  failingSince?: number;
  /** Kicks of its transport (monotonic ms, and the failure count then), the registry's history. */
  kicks?: ReadonlyArray<{ at: number; failures: number }>;
  /** The hub port behind it, for a power cycle; blocked: why no cycle can work until the settings or the hub change. */
  hubPort?: { hub: string; port: number; blocked?: string };
  /**
   * Under Advanced Protection (Android 16): a locked phone takes a new USB connection as charge-only, so a power cycle
   * would lose it from adb until someone unlocks it; the lock of a phone that does not answer cannot be seen, so its
   * port is never cycled.
   */
  chargeOnlyWhenLocked?: true;
  /** What the USB layer says of it: a phone the kernel has on no port is not kicked or reconnected through adb. */
  usb?: UsbSeen;
  /** Recovery's memory of the phone past its records (kicks and cycles, monotonic ms): the cooldown and limit count these. */
  escalation?: {
    kicks: readonly number[];
    cycles: readonly number[];
    /** While adb lists it offline: since when (monotonic ms) and the offline reconnects asked for since its last cycle. */
    offline?: { since: number; reconnects: number };
  };
}

export const HOUR_MS = 3_600_000;

type HubPlace = NonNullable<ListedDevice['hubPort']>;

/** Whether the gate lets this disruption of the device through; asking records it as due. */
type MayDisturb = (d: ListedDevice, action: Disruption) => boolean;

/** What a phone whose port cannot be power-cycled says: what was tried, and why no more is. */
export function cannotCycle(place: HubPlace) {
  return `power-cycling hub ${place.hub} port ${place.port} cannot work (${place.blocked}); it is not tried again until the settings or the hub's port listing change`;
}

/** Why a phone's port is not power-cycled though a cycle is due, if it is not: a port no cycle can work, or a phone a cycle would lose. */
function noCycle(d: ListedDevice, place: HubPlace) {
  if (place.blocked !== undefined) return cannotCycle(place);
  if (d.chargeOnlyWhenLocked)
    return (
      `its hub ${place.hub} port ${place.port} is not power-cycled: it is under Advanced Protection, where a locked phone takes a new USB connection as charge-only ` +
      '(its USB data stays off until someone unlocks it), and the agent cannot see the lock of a phone that does not answer; ' +
      'a person must unlock it and replug it (or turn Advanced Protection off on a lab phone)'
    );
  return undefined;
}

const inHour = (at: number, now: number) => at > now - HOUR_MS && at <= now;

/** Recovery's power cycles of the phone's port within the hour. */
const cyclesOf = (d: ListedDevice, now: number) => (d.escalation?.cycles ?? []).filter((at) => inHour(at, now));

/** Why no power cycle is offered for a phone recovery can do no more for. */
const noCycleWay = (powerCycle: boolean) => (powerCycle ? 'no hub port is set for it (hubPorts) to power-cycle' : 'power cycling is off (recovery.powerCycle)');

const person = (d: ListedDevice, reason: string) => ({ kind: 'needs-person' as const, serial: d.serial, key: d.key ?? d.serial, reason });

const powerCycle = (d: ListedDevice, { hub, port }: HubPlace, reason: string): RecoveryAction => ({
  kind: 'power-cycle',
  serial: d.serial,
  key: d.key ?? d.serial,
  hub,
  port,
  reason,
  usbPort: d.usb?.port,
});

/** The states adb counts as online (ConnectionStateIsOnline); `adb reconnect offline` drops every other. */
const ONLINE_STATES = new Set(['device', 'bootloader', 'host', 'recovery', 'rescue', 'sideload']);

/**
 * Pure policy: given the devices, a time, the gate's clearances and recovery's kept values, which actions to take now.
 * It keeps nothing: what it moves of a connect backoff comes back as an intent, and a hub's lost phones come out at
 * every look of the episode, which recovery says once. The runner asks due() first, gets the gate's verdicts, then ticks.
 */
export class RecoveryPolicy {
  constructor(
    private readonly settings: RecoverySettings,
    /** The configured network addresses (settings: networkDevices), which the agent connects and keeps connected. */
    private readonly networkDevices: readonly string[] = [],
  ) {}

  /** The disruptions a tick at `now` would ask the booking gate about, in its order (the budget is spent in that order). */
  due(devices: readonly ListedDevice[], now: number, input: Omit<TickInput, 'cleared'> = {}) {
    const asked: DueDisruption[] = [];
    this.plan(this.connectsOf(input), devices, now, { ...input, cleared: new Map() }, asked);
    return asked;
  }

  /** Which actions to take now, with their connect-backoff intents; a disruption not cleared is left out and stays due. */
  tick(devices: readonly ListedDevice[], now: number, input: TickInput = {}) {
    const connects = this.connectsOf(input);
    const actions: Array<RecoveryAction | BackoffIntent> = this.plan(connects, devices, now, input, []);
    for (const [address, entry] of connects) {
      if (!isDeepStrictEqual(entry, input.connects?.get(address) ?? FRESH)) actions.push({ kind: 'connect-backoff', address, entry });
    }
    return actions;
  }

  /** A copy of each configured address's backoff for one plan to move. */
  private connectsOf(input: Pick<TickInput, 'connects'>) {
    return new Map(this.networkDevices.map((address) => [address, { ...(input.connects?.get(address) ?? FRESH) }]));
  }

  private plan(connects: Map<string, ConnectEntry>, devices: readonly ListedDevice[], now: number, input: TickInput, asked: DueDisruption[]) {
    const { cleared = 'all', portOff = new Set<string>(), lastOfflineReconnect = -Infinity } = input;
    // Asked last, only about a device an action is due for: what the gate let through.
    const mayDisturb: MayDisturb = (d, action) => {
      const key = d.key ?? d.serial;
      asked.push({ key, serial: d.serial, action });
      return cleared === 'all' || cleared.get(key)?.has(action) === true;
    };
    const actions: RecoveryAction[] = [];
    const listed = new Map(devices.map((d) => [d.serial, d.state]));
    // Not enumerated on USB: the evidence picks the step, never adb.
    actions.push(...this.unseenSteps(devices, now, mayDisturb));
    const seen = devices.filter((d) => d.usb?.enumerated !== false);

    // USB devices, and the network devices the agent connects again: adb 29 forgets a dropped TCP device.
    const offline = seen.filter((d) => d.state === 'offline' && (!isTcpSerial(d.serial) || connects.has(d.serial)));
    const reconnectDue = this.settings.reconnectOffline && (now - lastOfflineReconnect >= this.settings.offlineCooldownMs || now < lastOfflineReconnect);
    const toReconnect: ListedDevice[] = [];
    for (const d of offline) {
      const step = this.offlineStep(d, now, reconnectDue, mayDisturb);
      if (step.action) actions.push(step.action);
      if (step.reconnect) toReconnect.push(d);
    }
    if (reconnectDue && toReconnect.length > 0) {
      const allowed = toReconnect.filter((d) => mayDisturb(d, 'reconnect-offline'));
      if (allowed.length > 0) {
        const serials = allowed.map((d) => d.serial);
        actions.push({
          kind: 'reconnect-offline',
          reason: `${allowed.length} device(s) offline: ${serials.join(', ')}`,
          serials,
          // adb's host-wide command reconnects every device not online: only when that is exactly these.
          all: allowed.length === devices.filter((d) => !ONLINE_STATES.has(d.state)).length,
        });
        // adb drops a network device it reconnects: it is connected again once the reconnect had a moment.
        for (const serial of serials) {
          const entry = connects.get(serial);
          if (entry) entry.nextAt = now + this.settings.connectBaseMs;
        }
      }
    }

    for (const d of seen) {
      const { serial } = d;
      const count = d.failures ?? 0;
      if (d.state !== 'device' || count < this.settings.kickAfterFailures) continue;
      // A TCP device is kicked only when the agent connects it again: adb 29 forgets a kicked one.
      if (isTcpSerial(serial) && !connects.has(serial)) continue;
      const recorded = (d.kicks ?? []).filter((k) => inHour(k.at, now));
      const last = recorded.at(-1);
      // Within one run of failures, each kick waits for kickAfterFailures more.
      const sinceKick = last && d.failingSince !== undefined && last.at >= d.failingSince ? count - last.failures : count;
      if (sinceKick < this.settings.kickAfterFailures) continue;
      // The record's kicks go with it when the phone drops off adb's list; recovery's memory does not.
      const times = d.escalation ? d.escalation.kicks.filter((at) => inHour(at, now)) : recorded.map((k) => k.at);
      const lastKick = times.at(-1) ?? -Infinity;
      // Kicked within the hour and wedged again: the kick did not help, the port's power may.
      if (this.settings.powerCycle && d.hubPort && inHour(lastKick, now)) {
        const step = this.cycle(
          d,
          d.hubPort,
          now,
          lastKick,
          'wedged',
          `still wedged after a kick (shell missed its deadline ${count} times in a row)`,
          mayDisturb,
        );
        if (typeof step !== 'string') actions.push(step);
        continue;
      }
      if (now - lastKick < this.settings.kickCooldownMs) continue;
      if (times.length >= this.settings.maxKicksPerHour) {
        actions.push(person(d, `its transport was kicked ${times.length} times this hour and it is still wedged; ${noCycleWay(this.settings.powerCycle)}`));
        continue;
      }
      if (!mayDisturb(d, 'kick')) continue;
      actions.push({ kind: 'kick', serial, key: d.key ?? serial, reason: `shell missed its deadline ${count} times in a row` });
      // adb 29 forgets a TCP device whose transport is kicked: connect it again.
      const entry = connects.get(serial);
      if (entry) entry.nextAt = now;
    }

    for (const [address, entry] of connects) {
      const state = listed.get(address);
      if (state === 'device' || state === 'unauthorized') {
        // It came through: what adb held is over.
        if (entry.held) Object.assign(entry, { held: false, failures: 0 });
        continue;
      }
      // Off adb on purpose: a connect would only fail, and warn, until the pause ends.
      if (portOff.has(address)) continue;
      // adb let go of the transport it held: a connect can work now (still a base interval after the last).
      if (entry.held && state === undefined) entry.nextAt = Math.min(entry.nextAt, (entry.heldAt ?? now) + this.settings.connectBaseMs);
      if (now < entry.nextAt) continue;
      // Until the caller reports the outcome, do not ask again before the backoff.
      entry.nextAt = now + Math.max(connectBackoff(entry.failures + 1, this.settings), 1);
      // Its outcome says again whether adb holds it.
      entry.held = false;
      actions.push({ kind: 'connect', address, reason: state ? `listed as ${state}` : 'not listed by adb', listed: state });
    }
    return actions;
  }

  /**
   * A port's power cycle that is due: within the cooldown after `since` or the last cycle, none ('cooldown'); past the
   * hourly limit, or where no cycle may work, a person; else the cycle, if the gate lets it ('held').
   */
  private cycle(
    d: ListedDevice,
    place: HubPlace,
    now: number,
    since: number,
    still: string,
    reason: string,
    mayDisturb: MayDisturb,
  ): RecoveryAction | 'cooldown' | 'held' {
    const cycles = cyclesOf(d, now);
    if (now - Math.max(since, cycles.at(-1) ?? -Infinity) < this.settings.kickCooldownMs) return 'cooldown';
    if (cycles.length >= this.settings.maxKicksPerHour) return person(d, `its port was power-cycled ${cycles.length} times this hour and it is still ${still}`);
    const stop = noCycle(d, place);
    if (stop !== undefined) return person(d, stop);
    if (!mayDisturb(d, 'power-cycle')) return 'held';
    return powerCycle(d, place, reason);
  }

  /**
   * What an offline phone needs now: another reconnect, or once they failed its port power-cycled (if the gate lets it)
   * or a person, reconnects going on meanwhile (they cost nothing).
   */
  private offlineStep(d: ListedDevice, now: number, reconnectDue: boolean, mayDisturb: MayDisturb) {
    const run = d.escalation?.offline;
    const { offlineCooldownMs, kickCooldownMs, powerCycle } = this.settings;
    // Offline because recovery just kicked it: the kick's cooldown first, not a reconnect at once.
    const lastKick = d.escalation?.kicks.at(-1) ?? -Infinity;
    if (now >= lastKick && now - lastKick < kickCooldownMs) return { reconnect: false };
    // adb lists a network device offline during the agent's connect handshake: a reconnect then would cut it.
    if (isTcpSerial(d.serial) && (!run || now - run.since < offlineCooldownMs)) return { reconnect: false };
    // reconnectDue: the last reconnect has had its whole cooldown to work.
    if (!run || !reconnectDue || run.reconnects < OFFLINE_RECONNECTS_BEFORE_CYCLE || now - run.since < OFFLINE_COOLDOWNS_BEFORE_CYCLE * offlineCooldownMs) {
      return { reconnect: true };
    }
    const seconds = Math.floor((now - run.since) / 1000);
    const offlineFor = seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min`;
    if (!powerCycle || !d.hubPort) {
      return {
        action: person(d, `it has been offline for ${offlineFor} through ${run.reconnects} offline reconnects; ${noCycleWay(powerCycle)}`),
        reconnect: true,
      };
    }
    // Within a cycle's cooldown, the cheap reconnect goes on meanwhile.
    const step = this.cycle(
      d,
      d.hubPort,
      now,
      -Infinity,
      'offline',
      `still offline after ${run.reconnects} offline reconnects (offline for ${offlineFor})`,
      mayDisturb,
    );
    if (typeof step === 'string') return { reconnect: step === 'cooldown' };
    return { action: step, reconnect: step.kind === 'needs-person' };
  }

  /**
   * The phones the kernel has on no port: adb cannot reach them. Two or more of one hub lost together, or any whose hub
   * or controller the USB layer blames, are the hub's: its line at every look (said once), no cycles one by one. Any
   * other gets its port's power cycle when allowed, else a person.
   */
  private unseenSteps(devices: readonly ListedDevice[], now: number, mayDisturb: MayDisturb) {
    const unseen = devices.flatMap((d) => (d.usb?.enumerated === false ? [{ d, usb: d.usb }] : []));
    const byHub = Map.groupBy(unseen, (u) => wideBlame(u.usb)?.subject ?? u.usb.hub);
    const actions: RecoveryAction[] = [];
    for (const [hub, group] of byHub) {
      const times = group.map((u) => u.usb.at);
      const blame = group.map((u) => wideBlame(u.usb)).find((b) => b !== undefined);
      const together = group.length >= 2 && Math.max(...times) - Math.min(...times) <= LOST_TOGETHER_MS;
      if (!blame && !together) {
        for (const { d, usb } of group) actions.push(this.unseenStep(d, usb, now, mayDisturb));
        continue;
      }
      const serials = group.map((u) => u.d.serial).sort();
      const reason = `${serials.length} phone(s) of hub ${hub} are off USB together (${group
        .map((u) => u.usb.port)
        .sort()
        .join(', ')}): ${blame?.evidence ?? 'the hub, its power supply or its cable to the host, not these phones'}`;
      actions.push({ kind: 'hub-lost', hub, serials, reason });
      const note = `hub ${hub} lost its phones together (the kernel has none of them on a port): check the hub, its power supply and its cable; an adb kick cannot reach a phone the kernel does not see`;
      for (const { d } of group) actions.push({ ...person(d, note), quiet: true });
    }
    return actions;
  }

  /** One phone off USB on its own: its port's power cycle (within the hourly limit and the cooldown), else a person; never adb. */
  private unseenStep(d: ListedDevice, usb: Extract<UsbSeen, { enumerated: false }>, now: number, mayDisturb: MayDisturb): RecoveryAction {
    const blame = usb.blame ? `; the USB layer says: ${usb.blame.evidence}` : '';
    const what = `not enumerated on USB (the kernel's last word on port ${usb.port} is ${usb.last})${blame}; an adb kick cannot reach a phone the kernel does not see`;
    if (!this.settings.powerCycle || !d.hubPort) return person(d, `${what}; ${noCycleWay(this.settings.powerCycle)}`);
    const cycles = cyclesOf(d, now);
    const stop = noCycle(d, d.hubPort);
    if (stop !== undefined) return person(d, `${what}; ${stop}`);
    if (cycles.length >= this.settings.maxKicksPerHour) return person(d, `${what}; its port was power-cycled ${cycles.length} times this hour`);
    // Within a cycle's cooldown, or held back by the gate: the person's note stands meanwhile.
    if (now - (cycles.at(-1) ?? -Infinity) < this.settings.kickCooldownMs || !mayDisturb(d, 'power-cycle')) {
      return person(d, `${what}; its hub port is power-cycled when it may be`);
    }
    return powerCycle(d, d.hubPort, what);
  }
}

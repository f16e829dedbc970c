// When to heal a device, decided without I/O: the caller passes the clock.
// Self-healing never disrupts other devices: it only reconnects offline
// devices, kicks one wedged transport, or (re)connects a configured network
// device. It never restarts the adb server.
import { backoffBound } from '../util/backoff.js';
import { isTcpSerial } from '../util/tcp-serial.js';

export interface RecoverySettings {
  /** Reconnect offline devices (`adb reconnect offline`). */
  reconnectOffline: boolean;
  offlineCooldownMs: number;
  /** Consecutive shell deadline misses of a ready device before its transport is kicked. */
  kickAfterFailures: number;
  kickCooldownMs: number;
  maxKicksPerHour: number;
  /** Backoff of network-device connects: base doubles per failure up to max. */
  connectBaseMs: number;
  connectMaxMs: number;
}

export const defaultRecoverySettings: RecoverySettings = {
  reconnectOffline: true,
  offlineCooldownMs: 60_000,
  kickAfterFailures: 3,
  kickCooldownMs: 5 * 60_000,
  maxKicksPerHour: 3,
  connectBaseMs: 2_000,
  connectMaxMs: 5 * 60_000,
};

export type RecoveryAction =
  /** serials: the offline devices it is for; all: every offline USB device, so adb's host-wide command may run. */
  | { kind: 'reconnect-offline'; reason: string; serials: string[]; all: boolean }
  | { kind: 'kick'; serial: string; key: string; reason: string }
  | { kind: 'connect'; address: string; reason: string };

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
}

export const HOUR_MS = 3_600_000;

/**
 * Pure policy. Feed it the devices (with their failure counts and kick
 * history from the registry) and a time; ask it which actions to take now.
 * It keeps per-device nothing: only the offline-reconnect cooldown and the
 * connect backoff of the configured network addresses.
 */
export class RecoveryPolicy {
  private lastOfflineReconnect = -Infinity;
  private readonly connects = new Map<string, { failures: number; nextAt: number }>();

  constructor(
    private readonly settings: RecoverySettings,
    private readonly networkDevices: readonly string[] = [],
  ) {
    for (const address of networkDevices) this.connects.set(address, { failures: 0, nextAt: -Infinity });
  }

  /** Result of a connect the caller made for a network device. */
  noteConnectOutcome(address: string, ok: boolean, now: number): void {
    const entry = this.connects.get(address);
    if (!entry) return;
    if (ok) {
      // Connected: asked again only if it drops, and no sooner than the base
      // interval (adb may list it offline a while before the handshake ends).
      entry.failures = 0;
      entry.nextAt = now + this.settings.connectBaseMs;
    } else {
      entry.failures += 1;
      entry.nextAt = now + this.backoff(entry.failures);
    }
  }

  backoff(failures: number): number {
    const { connectBaseMs, connectMaxMs } = this.settings;
    return backoffBound(failures, { firstMs: connectBaseMs, maxMs: connectMaxMs });
  }

  /**
   * The device list changed or a report is due: which actions to take now.
   * mayDisturb is asked last, only about a device an action is due for (the
   * booking gate: it may cost a request to the cloud); a device it refuses
   * is left out, and the action stays due.
   */
  tick(devices: readonly ListedDevice[], now: number, mayDisturb: (d: ListedDevice) => boolean = () => true): RecoveryAction[] {
    const actions: RecoveryAction[] = [];
    const listed = new Map(devices.map((d) => [d.serial, d.state]));

    // USB devices only: adb 29 forgets a TCP device whose transport is
    // dropped, and one connected by hand (not in networkDevices) would not
    // come back. adb retries an offline TCP connection by itself.
    const offline = devices.filter((d) => d.state === 'offline' && !isTcpSerial(d.serial));
    if (
      this.settings.reconnectOffline &&
      offline.length > 0 &&
      (now - this.lastOfflineReconnect >= this.settings.offlineCooldownMs || now < this.lastOfflineReconnect)
    ) {
      const allowed = offline.filter((d) => mayDisturb(d));
      if (allowed.length > 0) {
        this.lastOfflineReconnect = now;
        const serials = allowed.map((d) => d.serial);
        actions.push({ kind: 'reconnect-offline', reason: `${allowed.length} device(s) offline: ${serials.join(', ')}`, serials, all: allowed.length === offline.length });
      }
    }

    for (const d of devices) {
      const { serial } = d;
      const count = d.failures ?? 0;
      if (d.state !== 'device' || count < this.settings.kickAfterFailures) continue;
      // A TCP device is kicked only when the agent connects it again: adb 29
      // forgets one whose transport is kicked, and a device someone else
      // connected would be gone for good.
      if (isTcpSerial(serial) && !this.connects.has(serial)) continue;
      const times = (d.kicks ?? []).filter((k) => k.at > now - HOUR_MS && k.at <= now);
      const last = times.length ? times[times.length - 1]! : undefined;
      if (last && now - last.at < this.settings.kickCooldownMs) continue;
      if (times.length >= this.settings.maxKicksPerHour) continue;
      // Within one run of failures, each kick waits for kickAfterFailures more.
      const sinceKick = last && d.failingSince !== undefined && last.at >= d.failingSince ? count - last.failures : count;
      if (sinceKick < this.settings.kickAfterFailures) continue;
      if (!mayDisturb(d)) continue;
      actions.push({ kind: 'kick', serial, key: d.key ?? serial, reason: `shell missed its deadline ${count} times in a row` });
      // adb 29 forgets a TCP device whose transport is kicked: connect it again.
      const entry = this.connects.get(serial);
      if (entry) entry.nextAt = now;
    }

    for (const [address, entry] of this.connects) {
      const state = listed.get(address);
      if (state === 'device' || state === 'unauthorized') continue;
      if (now < entry.nextAt) continue;
      // Until the caller reports the outcome, do not ask again before the backoff.
      entry.nextAt = now + Math.max(this.backoff(entry.failures + 1), 1);
      actions.push({ kind: 'connect', address, reason: state ? `listed as ${state}` : 'not listed by adb' });
    }
    return actions;
  }

  /** Size of the state, for the boundedness property. */
  size(): number {
    return this.connects.size;
  }
}

import type { Settings } from '../../config/schema.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { ChargePauses, portHeldOff } from '../charge/pauses.js';
import { recoveryState } from './state.js';
import { Escalations, historyOf } from './escalations.js';
import { RecoveryNotebook } from './notes.js';
import { ActionRunner, RunnerAction, type ActionOptions } from '../../actions/runner.js';
import { HOUR_MS, OFFLINE_RECONNECT_TARGET, RecoveryPolicy, type Disruption, type DueDisruption, type RecoveryAction } from './policy.js';
import { SaidOnce } from '../../log/said-once.js';
import { CONNECT_TIMING, ConnectBackoffs } from './connects.js';
import { bookingGateOf, cloudIdOf, type BookingGate } from '../../booking/gate.js';
import type { PortPower } from '../../hub/uhubctl.js';
import type { HubPort } from '../../config/hub-ports.js';
import { claimOf, conflictsOf, type Conflict } from '../../devices/claims.js';
import { DeviceMapping } from '../../actions/device-mapping.js';
import { keyRefusalText } from '../../actions/mapping-key.js';
import { targetOf } from './action-names.js';
import { BlockedPorts } from './blocked-ports.js';
import { carry, type CarryContext, type RecoveryAdb } from './carry.js';
import { noteAttention, noteHolds, type HoldContext, type HoldVerdict, type Verdicts } from './holds.js';
import { Refusals } from './refusals.js';
import type { UsbEvidence, UsbSeen } from '../../devices/usb-evidence.js';
import { isTcpSerial } from '../../util/tcp-serial.js';

export type { RecoveryAdb } from './carry.js';

export interface RecoveryOptions extends ActionOptions {
  adb: RecoveryAdb;
  settings: Pick<Settings, 'networkDevices' | 'recovery'>;
  /** Switches hub ports (uhubctl), when recovery.powerCycle is on. */
  portPower?: PortPower;
  /** The hub port behind each phone (settings: hubPorts), by udid or serial. */
  hubPorts?: ReadonlyMap<string, HubPort>;
  /** The look-up shared with charge control (a key naming two phones said once); else one of its own from hubPorts. */
  mapping?: DeviceMapping;
  /** The booking gate, when shared with charge control (one bound on the host's status requests); else its own. */
  gate?: BookingGate;
  /** The USB layer's word on each phone (the wiring hands it in): a phone the kernel does not see is not reached through adb, and a power cycle is checked in its log. */
  usb?: UsbEvidence;
}

/**
 * Self-healing that never disrupts: carries out what the RecoveryPolicy
 * decides (reconnect offline devices, kick one wedged transport,
 * power-cycle one phone's hub port, keep network devices connected), one
 * action per target at a time, each bounded by its deadline and never
 * awaited by a report (carry.ts). The runner counts its kicks and cycles for
 * the policy's limits; the registry's Escalations keep who each phone was
 * and its offline run. It never restarts the adb server.
 */
export class Recovery extends RunnerAction {
  readonly name = 'recovery';
  readonly tickMs: number;
  private readonly policy: RecoveryPolicy;
  private readonly gate: BookingGate;
  private readonly escalations: Escalations;
  private readonly pauses: ChargePauses;
  private readonly refusals: Refusals;
  /** Hub ports not cycled again until the settings (a restart) or the hub's status listing change. */
  private readonly blocked: BlockedPorts;
  private readonly holds: HoldContext;
  private readonly carrying: CarryContext;
  private readonly mapping: DeviceMapping | undefined;
  /** The hubs whose lost phones were said, while their episode lasts: once per episode, not at every look. */
  private readonly hubsSaid: SaidOnce;
  /** The connect backoff of the configured network addresses, which the policy decides from and moves by intents. */
  private readonly connects: ConnectBackoffs;

  constructor(private readonly options: RecoveryOptions) {
    const gate = options.gate ?? bookingGateOf(options.settings, options.clock);
    super(options.runner ?? new ActionRunner({ clock: options.clock, gate, booking: options.booking }));
    this.gate = gate;
    const r = options.settings.recovery;
    // 0 turns kicking off: no number of failures reaches it.
    const kickAfter = r.kickAfterShellFailures > 0 ? r.kickAfterShellFailures : Infinity;
    this.policy = new RecoveryPolicy(
      {
        reconnectOffline: r.reconnectOffline,
        offlineCooldownMs: r.offlineCooldownSeconds * 1000,
        kickAfterFailures: kickAfter,
        kickCooldownMs: r.kickCooldownSeconds * 1000,
        maxKicksPerHour: r.maxKicksPerHour,
        ...CONNECT_TIMING,
        powerCycle: r.powerCycle && options.portPower !== undefined,
      },
      options.settings.networkDevices,
    );
    this.tickMs = options.tickMs ?? 2_000;
    const { registry, logger, stats, adb, portPower } = options;
    const now = (): number => options.clock.monotonic();
    this.escalations = new Escalations(registry, adb.platform);
    this.pauses = new ChargePauses(registry, adb.platform);
    this.refusals = new Refusals(stats, logger, now);
    this.blocked = new BlockedPorts(portPower, logger, now);
    const notes = new RecoveryNotebook(registry);
    this.holds = { notes, stats, logger, kickAfter };
    const usb = options.usb && { evidence: options.usb, wall: () => options.clock.wall(), timers: options.clock };
    this.connects = new ConnectBackoffs(options.settings.networkDevices, CONNECT_TIMING);
    this.carrying = {
      adb,
      portPower,
      logger,
      stats,
      now,
      connects: this.connects,
      failing: new SaidOnce(now),
      notes,
      blocked: this.blocked,
      ...(usb && { usb }),
    };
    this.hubsSaid = new SaidOnce(now);
    const { hubPorts } = options;
    this.mapping =
      options.mapping ?? (hubPorts && new DeviceMapping({ hubPorts, networkDevices: options.settings.networkDevices, logger, clock: options.clock }));
  }

  look(): void {
    if (this.stopped) return;
    const { registry, clock } = this.options;
    const now = clock.monotonic();
    const records = registry.list(this.options.adb.platform);
    const { escalations, pauses } = this;
    escalations.prune(now - HOUR_MS);
    const udidOf = (r: DeviceSnapshot): string | undefined => r.udid ?? escalations.of(r.serial)?.udid;
    const stateOf = (r: DeviceSnapshot): string => recoveryState(r.state, pauses.of(r.serial));
    escalations.listed(
      records.map((r) => ({ serial: r.serial, state: stateOf(r), udid: udidOf(r) })),
      now,
    );
    this.blocked.recheck(now);
    const claims = records.map((r) => claimOf(r, udidOf(r)));
    // The port a key names: a cycle through a key naming another phone, or two, is planned and then refused (Refusals).
    const keyRefused = new Map<string, string>();
    const listed = records.map((r, i) => {
      const found = this.mapping?.portOf(claims[i]!, claims);
      if (found?.kind === 'refused') keyRefused.set(r.serial, keyRefusalText(found.key, found.names));
      const place = found && found.kind !== 'none' ? found.value : undefined;
      const blocked = place && this.blocked.why(place.hub, place.port);
      const hubPort = place && (blocked ? { ...place, blocked } : place);
      const usb = this.usbOf(r, udidOf(r));
      return {
        serial: r.serial,
        state: stateOf(r),
        key: r.key,
        failures: r.failures,
        failingSince: r.failure?.first,
        hubPort,
        ...(usb && { usb }),
        ...this.historyOf(r.serial),
      };
    });
    const ids = new Map(records.map((r) => [r.key, cloudIdOf(r.serial, udidOf(r))]));
    const devices = this.gate.byTurn(listed, (d) => ids.get(d.key));
    const conflicts = conflictsOf(claims);
    const portOff = new Set(pauses.entries().flatMap(([serial, e]) => (portHeldOff(e) ? [serial] : [])));
    // The offline cooldown counts from the runner's start of the last reconnect.
    const lastOfflineReconnect = this.runner.startsOf(OFFLINE_RECONNECT_TARGET).at(-1);
    const facts = { portOff, connects: this.connects.view, ...(lastOfflineReconnect !== undefined && { lastOfflineReconnect }) };
    // The disruptions due, cleared (or not) before the policy decides, as values.
    const { cleared, verdicts } = this.clear(this.policy.due(devices, now, facts), ids, conflicts, keyRefused);
    const attention = new Map<string, string>();
    const quiet = new Set<string>();
    const lostHubs = new Set<string>();
    for (const planned of this.connects.take(this.policy.tick(devices, now, { ...facts, cleared }))) {
      if (planned.kind === 'hub-lost') {
        lostHubs.add(planned.hub);
        if (this.hubsSaid.say(planned.hub)) void carry(this.carrying, planned);
        continue;
      }
      if (planned.kind === 'needs-person' && planned.quiet) quiet.add(planned.key);
      const action = this.refusals.trusted(planned, conflicts, claims, keyRefused);
      if (!action) continue;
      if (action.kind === 'needs-person') {
        attention.set(action.key, action.reason);
        continue;
      }
      if (action.kind === 'reconnect-offline') for (const serial of action.serials) escalations.reconnected(serial);
      const started = this.runner.run(...this.work(action));
      if (started && (action.kind === 'kick' || action.kind === 'power-cycle'))
        escalations.acted(action.serial, action.kind === 'kick' ? 'kick' : 'cycle', now, registry.get(action.key)?.udid);
    }
    // An episode ends when the hub has no phones lost together left: the next one is said again.
    this.hubsSaid.retain((hub) => lostHubs.has(hub));
    this.refusals.listed(new Set(records.map((r) => r.serial)));
    noteHolds(this.holds, records, verdicts);
    noteAttention(this.holds, records, attention, quiet);
  }

  /**
   * The runner's work for an action: the host's offline reconnect counted,
   * and kept for its whole cooldown; a kick or a cycle counted with the
   * phone's failure count, since within one run of failures the next action
   * waits for as many failures again (adb may not see a TCP phone's
   * connection die, and its run would go on).
   */
  private work(action: RecoveryAction): Parameters<ActionRunner['run']> {
    const go = () => carry(this.carrying, action);
    if (action.kind === 'reconnect-offline') {
      return [OFFLINE_RECONNECT_TARGET, go, undefined, { keepMs: this.options.settings.recovery.offlineCooldownSeconds * 1000 }];
    }
    const target = `${action.kind} ${targetOf(action)}`;
    if (action.kind !== 'kick' && action.kind !== 'power-cycle') return [target, go];
    return [target, go, undefined, { failures: this.options.registry.get(action.key)?.failures ?? 0 }];
  }

  /** What recovery did to the phone within the hour (the runner's counted kicks and cycles), with its offline run. */
  private historyOf(serial: string): ReturnType<typeof historyOf> {
    const counted = (kind: string) => this.runner.countedOf(`${kind} ${serial}`);
    return historyOf(counted('kick'), counted('power-cycle'), this.escalations.of(serial)?.offline);
  }

  /**
   * The USB layer's word on a phone on USB (a network phone's transport is
   * not its USB cable): its USB serials are its adb serial and its udid.
   */
  private usbOf(r: DeviceSnapshot, udid: string | undefined): UsbSeen | undefined {
    if (!this.options.usb || isTcpSerial(r.serial)) return undefined;
    const serials = [...new Set([r.serial, ...(udid !== undefined ? [udid, udid.replace(/-/g, '')] : [])])];
    const port = r.usb?.usb;
    return this.options.usb.seen(serials, port !== undefined && /^\d+-\d+(?:\.\d+)*$/.test(port) ? port : undefined);
  }

  /**
   * The booking gate's word on each disruption due, in the policy's order.
   * A device whose identity is in conflict (or a cycle through a key naming
   * two phones) is not asked about: the trust rule refuses its action next,
   * with its own line, and asking would spend the cloud's budget and say
   * "left alone: booked" of a phone left alone for another reason.
   */
  private clear(
    due: readonly DueDisruption[],
    ids: ReadonlyMap<string, string | undefined>,
    conflicts: ReadonlyMap<string, Conflict>,
    keyRefused: ReadonlyMap<string, string>,
  ): { cleared: Map<string, Set<Disruption>>; verdicts: Verdicts } {
    const cleared = new Map<string, Set<Disruption>>();
    const verdicts = new Map<string, HoldVerdict>();
    for (const { key, serial, action } of due) {
      let free = conflicts.has(serial) || (action === 'power-cycle' && keyRefused.has(serial));
      if (!free) {
        const verdict = this.runner.verdict(ids.get(key), this);
        verdicts.set(key, { verdict, action });
        free = verdict.kind === 'free';
      }
      if (free) cleared.set(key, (cleared.get(key) ?? new Set<Disruption>()).add(action));
    }
    return { cleared, verdicts };
  }
}

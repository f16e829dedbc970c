import type { Settings } from '../../config/schema.js';
import type { DeviceSnapshot } from '../../devices/record.js';
import type { PhoneControl } from '../../devices/control.js';
import { ChargePauses, portHeldOff, type ChargeEntry } from '../../hub/charge-pauses.js';
import { Escalations, historyOf } from './escalations.js';
import { RecoveryNotebook } from './notes.js';
import { RECOVERY_ACTIONS, RECOVERY_HELD } from './counts.js';
import type { Clock } from '../../util/clock.js';
import { ActionRunner, RunnerAction, type ActionOptions } from '../runner.js';
import { cannotCycle, HOUR_MS, RecoveryPolicy, type ListedDevice, type RecoveryAction } from './policy.js';
import { limited } from '../../log/limited.js';
import { SaidOnce } from '../../log/said-once.js';
import { BookingGate, cloudIdOf, type BookingVerdict } from '../../booking/gate.js';
import type { Disruption } from './policy.js';
import type { PortPower } from '../../hub/uhubctl.js';
import type { HubPort } from '../../config/hub-ports.js';
import { claimOf, conflictsOf, conflictText } from '../../devices/claims.js';
import { portRefusal } from '../trust.js';
import { DeviceMapping } from '../device-mapping.js';
import { keyRefusalText } from '../mapping-key.js';
import { lastingFailure } from '../../hub/status.js';

/** How often a hub whose port cannot be cycled is asked for its status listing, to see the hardware change. */
export const BLOCKED_RECHECK_MS = 60_000;

/** A hub port whose power cycle failed in a way no retry fixes. */
interface BlockedPort {
  /** Why (for the phone's message). */
  why: string;
  /** What the hub's status query said then (its output, or its failure): a different answer is a hardware change. */
  status: string | undefined;
  /** Monotonic ms of the last status query. */
  checkedAt: number;
}

/** The adb operations recovery uses (AdbClient's, each with its deadline), on the phones of the platform it carries. */
export interface RecoveryAdb extends PhoneControl {
  reconnectOffline(): Promise<string>;
  reconnect(serial: string): Promise<string>;
  connect(address: string): Promise<string>;
}

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
}

/** What a failed action means and what happens next: the line names the layer at fault (the adb server's command, or the hub tool). */
const FAILED_ADVICE: Record<Exclude<RecoveryAction['kind'], 'connect'>, string> = {
  'reconnect-offline':
    'the adb server did not carry out `adb reconnect offline` (check that `adb devices` answers on this host); it is tried again after the offline cooldown',
  kick: 'the adb server did not carry out the kick, or the phone left adb meanwhile (check `adb devices` on this host); it counts against the hourly limit and is tried again after the kick cooldown',
  'power-cycle': "the hub tool failed for this port (its words are above); the phone's message says a person is needed: check the hub's power and its cable",
  // Never carried out, so never failed: named for the type's sake.
  'needs-person': 'a person is needed',
};

/** Metric label of each action. */
const ACTION_NAME: Record<RecoveryAction['kind'], string> = {
  'reconnect-offline': 'reconnect_offline',
  kick: 'kick',
  connect: 'connect',
  'power-cycle': 'power_cycle',
  'needs-person': 'needs_person',
};

/**
 * Self-healing that never disrupts: carries out what the RecoveryPolicy
 * decides (reconnect offline devices, kick one wedged transport,
 * power-cycle one phone's hub port, keep network devices connected), one
 * action per target at a time, each bounded by its deadline and never
 * awaited by a report, and keeps the registry's Escalations up to date
 * (what was done, and each offline phone's run) for the policy's limits.
 * It never restarts the adb server.
 */
export class Recovery extends RunnerAction {
  readonly name = 'recovery';
  readonly tickMs: number;
  private readonly policy: RecoveryPolicy;
  /** Network devices whose last connect failed, and why (one log line per change, not per attempt). */
  private readonly failing: SaidOnce;
  private readonly gate: BookingGate;
  private readonly kickAfter: number;
  private readonly escalations: Escalations;
  private readonly notes: RecoveryNotebook;
  private readonly pauses: ChargePauses;
  /** Actions refused for a device ("serial|action"), with why: said once per reason. */
  private readonly refused: SaidOnce;
  /** Hub ports (HUB:PORT) not cycled again until the settings (a restart) or the hub's status listing change. */
  private readonly blocked = new Map<string, BlockedPort>();
  private statusInFlight = false;
  private readonly mapping: DeviceMapping | undefined;

  constructor(private readonly options: RecoveryOptions) {
    const gate = options.gate ?? bookingGateOf(options.settings, options.clock);
    super(options.runner ?? new ActionRunner({ clock: options.clock, gate, booking: options.booking }));
    this.gate = gate;
    const r = options.settings.recovery;
    this.policy = new RecoveryPolicy(
      {
        reconnectOffline: r.reconnectOffline,
        offlineCooldownMs: r.offlineCooldownSeconds * 1000,
        // 0 turns kicking off: no number of failures reaches it.
        kickAfterFailures: r.kickAfterShellFailures > 0 ? r.kickAfterShellFailures : Infinity,
        kickCooldownMs: r.kickCooldownSeconds * 1000,
        maxKicksPerHour: r.maxKicksPerHour,
        connectBaseMs: 2_000,
        connectMaxMs: 5 * 60_000,
        powerCycle: r.powerCycle && options.portPower !== undefined,
      },
      options.settings.networkDevices,
    );
    this.kickAfter = r.kickAfterShellFailures > 0 ? r.kickAfterShellFailures : Infinity;
    this.tickMs = options.tickMs ?? 2_000;
    const now = (): number => options.clock.monotonic();
    this.failing = new SaidOnce(now);
    this.refused = new SaidOnce(now);
    this.escalations = new Escalations(options.registry, options.adb.platform);
    this.notes = new RecoveryNotebook(options.registry);
    this.pauses = new ChargePauses(options.registry, options.adb.platform);
    const { hubPorts, logger } = options;
    this.mapping = options.mapping ?? (hubPorts && new DeviceMapping({ hubPorts, networkDevices: options.settings.networkDevices, logger }));
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
    this.recheckBlocked(now);
    const claims = records.map((r) => claimOf(r, udidOf(r)));
    // The port a key names: a cycle through a key naming another phone, or two, is planned and then refused (trusted()).
    const keyRefused = new Map<string, string>();
    const listed = records.map((r, i) => {
      const found = this.mapping?.portOf(claims[i]!, claims);
      if (found?.kind === 'refused') keyRefused.set(r.serial, keyRefusalText(found.key, found.names));
      const place = found && found.kind !== 'none' ? found.value : undefined;
      const blocked = place && this.blocked.get(`${place.hub}:${place.port}`);
      const hubPort = place && (blocked ? { ...place, blocked: blocked.why } : place);
      return {
        serial: r.serial,
        state: stateOf(r),
        key: r.key,
        failures: r.failures,
        failingSince: r.failure?.first,
        hubPort,
        ...historyOf(escalations.of(r.serial)),
      };
    });
    const ids = new Map(records.map((r) => [r.key, cloudIdOf(r.serial, udidOf(r))]));
    const devices = this.gate.byTurn(listed, (d) => ids.get(d.key));
    const verdicts = new Map<string, { verdict: BookingVerdict; action: Disruption }>();
    const conflicts = conflictsOf(claims);
    // The booking gate, asked only about a device an action is due for, and
    // not about one whose identity is in conflict: the trust rule refuses its
    // action next, with its own line, and asking would spend the cloud's
    // budget and say "left alone: booked" of a phone left alone for another reason.
    const mayDisturb = (d: ListedDevice, action: Disruption): boolean => {
      if (conflicts.has(d.serial) || (action === 'power-cycle' && keyRefused.has(d.serial))) return true;
      const key = d.key ?? d.serial;
      const verdict = this.runner.verdict(ids.get(key), this);
      verdicts.set(key, { verdict, action });
      return verdict.kind === 'free';
    };
    const attention = new Map<string, string>();
    const portOff = new Set(pauses.entries().flatMap(([serial, e]) => (portHeldOff(e) ? [serial] : [])));
    for (const planned of this.policy.tick(devices, now, mayDisturb, portOff)) {
      const action = this.trusted(planned, conflicts, claims, keyRefused);
      if (!action) continue;
      if (action.kind === 'needs-person') {
        attention.set(action.key, action.reason);
        continue;
      }
      if (action.kind === 'reconnect-offline') {
        for (const serial of action.serials) escalations.reconnected(serial);
      }
      if (action.kind === 'kick' || action.kind === 'power-cycle') {
        // With the failure count: within one run of failures, the next action
        // waits for as many failures again (adb may not see a TCP phone's
        // connection die, and its run would go on).
        const record = registry.get(action.key);
        escalations.note(action.serial, action.kind === 'kick' ? 'kick' : 'cycle', now, record?.udid, record?.failures ?? 0);
      }
      this.run(action);
    }
    const serials = new Set(records.map((r) => r.serial));
    this.refused.retain((key) => serials.has(key.slice(0, key.lastIndexOf('|'))));
    this.noteHolds(records, verdicts);
    this.noteAttention(records, attention);
  }

  /**
   * The action as it may be taken: none for a device whose identity is in
   * conflict, no power cycle of a port a USB phone is not behind, and an
   * offline reconnect only of the devices whose identity holds. A refusal is
   * counted and said once per device and reason.
   */
  private trusted(
    action: RecoveryAction,
    conflicts: ReturnType<typeof conflictsOf>,
    claims: ReturnType<typeof claimOf>[],
    keyRefused: ReadonlyMap<string, string>,
  ): RecoveryAction | undefined {
    if (action.kind === 'reconnect-offline') {
      const serials = action.serials.filter((s) => !conflicts.has(s));
      for (const s of action.serials) if (conflicts.has(s)) this.refuse(s, 'reconnect_offline', conflictText(conflicts.get(s)!));
      // adb's host-wide reconnect would reach the conflicted ones too: one by one instead.
      if (serials.length === action.serials.length) return action;
      return serials.length ? { ...action, all: false, serials } : undefined;
    }
    if (action.kind !== 'kick' && action.kind !== 'power-cycle') return action;
    const conflict = conflicts.get(action.serial);
    const claim = claims.find((c) => c.serial === action.serial);
    const why = conflict
      ? conflictText(conflict)
      : action.kind === 'power-cycle'
        ? (keyRefused.get(action.serial) ?? (claim && portRefusal(claim, claims, { hub: action.hub, port: action.port }, true)))
        : undefined;
    if (why === undefined) return action;
    this.refuse(action.serial, ACTION_NAME[action.kind], why);
    return undefined;
  }

  private refuse(serial: string, action: string, why: string): void {
    if (!this.refused.say(`${serial}|${action}`, why)) return;
    this.options.stats.noteRefused(action);
    limited(this.options.logger).warn(
      'recovery-refused',
      { serial, action, reason: why },
      `recovery does not ${action.replace('_', ' ')} ${serial}: ${why}; no host action is taken for it until its identity holds`,
      serial,
    );
  }

  /**
   * A phone recovery can do no more for says that a person is needed, as
   * long as it stays wedged; a failed power cycle says so too (run()).
   */
  private noteAttention(records: ReadonlyArray<DeviceSnapshot>, attention: ReadonlyMap<string, string>): void {
    const { logger } = this.options;
    const { notes } = this;
    for (const r of records) {
      const reason = attention.get(r.key);
      const noted = notes.of(r.key)?.attention;
      if (reason !== undefined) {
        const text = attentionText(reason);
        if (noted !== text) {
          notes.setAttention(r.key, text);
          limited(logger).warn('recovery-needs-person', { serial: r.serial, udid: r.udid, reason }, `device ${r.udid ?? r.serial} ${text}`, r.serial);
        }
      } else if (noted !== undefined && r.state !== 'offline' && r.failures < this.kickAfter) {
        notes.setAttention(r.key, undefined);
      }
    }
  }

  /**
   * A device the gate holds an action back from says so in its message,
   * counted and logged once per answer; the message goes when the action is
   * let through or the device no longer needs it.
   */
  private noteHolds(records: ReadonlyArray<DeviceSnapshot>, verdicts: ReadonlyMap<string, { verdict: BookingVerdict; action: Disruption }>): void {
    const { stats, logger } = this.options;
    const { notes } = this;
    for (const r of records) {
      const asked = verdicts.get(r.key);
      const verdict = asked?.verdict;
      const needed = r.state === 'offline' || r.failures >= this.kickAfter;
      if (verdict === undefined || verdict.kind === 'free' || !needed) {
        if (notes.of(r.key)?.heldBack !== undefined) notes.setHeldBack(r.key, undefined);
        if (verdict?.kind === 'free' || !needed) notes.countHold(r.key, undefined);
        continue;
      }
      if (verdict.kind === 'ask' || verdict.kind === 'waiting') continue;
      const action = ACTION_NAME[asked!.action];
      const what =
        asked!.action === 'kick'
          ? `kicking its adb transport (adb -s ${r.serial} reconnect)`
          : asked!.action === 'power-cycle'
            ? 'power-cycling its hub port'
            : `\`adb reconnect\` of the offline device`;
      const reason = verdict.kind === 'booked' ? 'booked' : 'unknown';
      const text =
        verdict.kind === 'booked'
          ? `left alone: booked in the cloud; recovery holds back ${what} until the booking ends`
          : `left alone: the cloud could not say whether it is booked (${verdict.reason}); recovery holds back ${what} until it can`;
      notes.setHeldBack(r.key, text);
      if (!notes.countHold(r.key, `${action}|${verdict.answer ?? text}`)) continue;
      stats.counter(RECOVERY_HELD).add(action, reason);
      limited(logger).info('recovery-held-back', { serial: r.serial, udid: r.udid, action, reason }, `device ${r.udid ?? r.serial} ${text}`, r.serial);
    }
  }

  /** One action per target at a time, through the runner. */
  private run(action: RecoveryAction): void {
    this.runner.run(`${action.kind} ${targetOf(action)}`, () => this.carry(action));
  }

  private async carry(action: RecoveryAction): Promise<void> {
    const target = targetOf(action);
    const { adb, logger } = this.options;
    try {
      switch (action.kind) {
        case 'reconnect-offline':
          if (action.all) {
            limited(logger).info('recovery-reconnect-offline', { reason: action.reason }, `adb reconnect offline: ${action.reason}`);
            await adb.reconnectOffline();
          } else {
            // adb's host-wide command would touch the offline devices the booking gate holds back too.
            limited(logger).info(
              'recovery-reconnect-offline',
              { reason: action.reason },
              `adb -s SERIAL reconnect, one by one (others offline are left alone): ${action.reason}`,
            );
            for (const serial of action.serials) await adb.reconnect(serial);
          }
          break;
        case 'kick':
          limited(logger).warn(
            'recovery-kick',
            { serial: action.serial, reason: action.reason },
            `kicking the adb transport of ${action.serial} (adb -s ${action.serial} reconnect): ${action.reason}; other devices are not touched`,
            action.serial,
          );
          await adb.reconnect(action.serial);
          break;
        case 'power-cycle': {
          limited(logger).warn(
            'recovery-power-cycle',
            { serial: action.serial, hub: action.hub, port: action.port, reason: action.reason },
            `power-cycling hub ${action.hub} port ${action.port} behind ${action.serial}: ${action.reason}; other ports are not touched`,
            action.serial,
          );
          const output = await this.options.portPower!.cycle(action.hub, action.port);
          logger.info({ serial: action.serial, hub: action.hub, port: action.port, output }, `hub ${action.hub} port ${action.port} power-cycled`);
          break;
        }
        case 'needs-person':
          return;
        case 'connect': {
          const answer = await adb.connect(action.address);
          // adb keeps the transport of an address it lists offline and says so: nothing was connected.
          const held = action.listed === 'offline' && answer.startsWith('already');
          this.policy.noteConnectOutcome(action.address, true, this.options.clock.monotonic(), held);
          if (held) {
            logger.debug({ address: action.address, answer }, 'adb holds the offline transport of the network device; connected again once adb drops it');
            break;
          }
          limited(logger).info(
            'recovery-connected',
            { address: action.address, reason: action.reason },
            this.failing.forget(action.address) !== undefined
              ? `network device ${action.address} connected again`
              : `network device ${action.address} connected (${action.reason})`,
            action.address,
          );
          break;
        }
      }
      this.count(action, 'ok');
    } catch (err) {
      this.count(action, 'failed');
      const text = err instanceof Error ? err.message : String(err);
      if (action.kind === 'connect') {
        this.policy.noteConnectOutcome(action.address, false, this.options.clock.monotonic());
        if (this.failing.say(action.address, text)) {
          limited(logger).warn(
            'recovery-connect-failed',
            { address: action.address, err: text },
            `network device ${action.address} could not be connected (${text}); the agent keeps trying, less and less often (at most every 5 min). Check that the device is on and its adb over TCP is enabled`,
            action.address,
          );
        }
      } else if (action.kind === 'power-cycle' && lastingFailure(text) !== undefined) {
        await this.block(action, text);
      } else {
        if (action.kind === 'power-cycle') {
          this.notes.setAttention(action.key, `needs a person: power-cycling its hub port failed (${text}); replug its cable or reboot it`);
        }
        limited(logger).warn(
          'recovery-failed',
          { action: ACTION_NAME[action.kind], target: target || undefined, err: text },
          `recovery action ${ACTION_NAME[action.kind]}${target ? ` of ${target}` : ''} failed: ${text}; ${FAILED_ADVICE[action.kind]}`,
          target || undefined,
        );
      }
    }
  }

  /**
   * A power cycle failed in a way no retry fixes: the port is not cycled
   * again until the settings change (a restart) or the hub's status listing
   * does (recheckBlocked), said once here and in the phone's message.
   */
  private async block(action: Extract<RecoveryAction, { kind: 'power-cycle' }>, text: string): Promise<void> {
    const why = `${lastingFailure(text)}: ${text}`;
    const status = await this.hubStatus(action.hub);
    this.blocked.set(`${action.hub}:${action.port}`, { why, status, checkedAt: this.options.clock.monotonic() });
    // The very text the policy's needs-person gives it next (noteAttention): one line, not two.
    this.notes.setAttention(action.key, attentionText(cannotCycle({ hub: action.hub, port: action.port, blocked: why })));
    limited(this.options.logger).warn(
      'recovery-cycle-blocked',
      { serial: action.serial, hub: action.hub, port: action.port, err: text },
      `power-cycling hub ${action.hub} port ${action.port} behind ${action.serial} cannot work (${why}); it is not tried again until the settings change (restart the agent) or the hub's port listing does. Check hubPorts and the hub (\`uhubctl -l ${action.hub}\`)`,
      `${action.hub}:${action.port}`,
    );
  }

  /** The hub's status listing, or its failure's text; undefined when the tool has no status query. */
  private async hubStatus(hub: string): Promise<string | undefined> {
    const power = this.options.portPower;
    if (!power?.status) return undefined;
    return power.status(hub).then(
      (output) => output,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  }

  /** Asks the hubs of blocked ports for their status now and then: a different answer lets the port be cycled again. */
  private recheckBlocked(now: number): void {
    if (this.statusInFlight || !this.options.portPower?.status) return;
    const due = [...this.blocked].find(([, b]) => now - b.checkedAt >= BLOCKED_RECHECK_MS);
    if (!due) return;
    const [place, entry] = due;
    entry.checkedAt = now;
    this.statusInFlight = true;
    const hub = place.slice(0, place.lastIndexOf(':'));
    void this.hubStatus(hub)
      .then((status) => {
        if (status === entry.status || this.blocked.get(place) !== entry) return;
        this.blocked.delete(place);
        limited(this.options.logger).info(
          'recovery-cycle-unblocked',
          { hub, place },
          `hub ${hub} answers differently now; power-cycling ${place} may be tried again`,
          place,
        );
      })
      .finally(() => (this.statusInFlight = false));
  }

  private count(action: RecoveryAction, result: 'ok' | 'failed'): void {
    this.options.stats.counter(RECOVERY_ACTIONS).add(ACTION_NAME[action.kind], result);
  }
}

/** A phone's message when recovery can do no more for it. */
function attentionText(reason: string): string {
  return `needs a person: ${reason}; replug its cable or reboot it`;
}

/** What an action is done to: a serial, a network address, or the host's offline devices (''). */
function targetOf(action: RecoveryAction): string {
  if (action.kind === 'kick' || action.kind === 'power-cycle' || action.kind === 'needs-person') return action.serial;
  return action.kind === 'connect' ? action.address : '';
}

/** The host's booking gate, as the recovery settings bound it. */
export function bookingGateOf(settings: Pick<Settings, 'recovery'>, clock: Clock): BookingGate {
  const r = settings.recovery;
  return new BookingGate({ cacheMs: r.bookingCacheSeconds * 1000, maxRequestsPerMinute: r.bookingRequestsPerMinute }, clock);
}

/**
 * The state recovery sees a phone in: one whose port charge control holds off
 * (or is switching) is off adb on purpose. A phone over TCP stays listed
 * offline while adb retries it, one on Wi-Fi adb charged from the hub stays
 * ready: neither is reconnected, kicked or power-cycled (a cycle would switch
 * its port on mid-pause), and an offline run ends. Once the port is on again,
 * recovery helps it back like any other.
 */
export function recoveryState(state: string, charge: Pick<ChargeEntry, 'pause' | 'switching'> | undefined): string {
  return charge !== undefined && portHeldOff(charge) ? 'charge-paused' : state;
}

import type { DeviceAction, Intent } from '../../actions/runner.js';
import { personNotes } from './notes.js';
import { portRefusal } from '../../actions/trust.js';
import { keyRefusalText } from '../../actions/mapping-key.js';
import { cloudIdOf } from '../../booking/gate.js';
import { claimOf, conflictsOf, conflictText } from '../../devices/claims.js';
import { recordKey } from '../../devices/record.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { USB_EVIDENCE } from '../../devices/usb-evidence.js';
import { SaidOnce } from '../../log/said-once.js';
import { isTcpSerial } from '../../util/tcp-serial.js';
import { usbBus } from '../../util/usb-path.js';
import type { FeatureContext } from '../context.js';
import { ChargePauses, portHeldOff } from '../charge/pauses.js';
import { actionName, targetOf } from './action-names.js';
import { blockedPorts } from './blocked-ports.js';
import { carryFailed, carryOut, type RecoveryAdb } from './carry.js';
import { CONNECT_TIMING, ConnectBackoffs } from './connects.js';
import { Escalations, historyOf } from './escalations.js';
import { noteAttention, noteHolds, type HoldVerdict } from './holds.js';
import { HOUR_MS, OFFLINE_RECONNECT_TARGET, RecoveryPolicy, type Disruption, type RecoveryAction } from './policy.js';
import { recoveryState } from './state.js';
import { counterKey } from '../../stats/counter.js';

export const RECOVERY_ACTIONS = counterKey(
  'device_agent_recovery_actions_total',
  'Self-healing actions (reconnect_offline, kick, connect, power_cycle) by result (ok, failed).',
  ['action', 'result'],
);

/** One of recovery's actions as the runner carries it out. */
type RecoveryIntent = Intent & { action: RecoveryAction };

/**
 * Self-healing that never disrupts: the RecoveryPolicy's decisions, carried out by carry.ts. The runner counts its
 * kicks and cycles; Escalations keep who each phone was and its offline run. It never restarts the adb server.
 */
export function recovery(ctx: FeatureContext<RecoveryAdb>): DeviceAction<RecoveryIntent> {
  const { registry, logger, clock, mapping, settings } = ctx;
  const adb = ctx.platforms.phones;
  const r = settings.recovery;
  const portPower = r.powerCycle ? ctx.uhubctl : undefined;
  // 0 turns kicking off: no number of failures reaches it.
  const kickAfter = r.kickAfterShellFailures > 0 ? r.kickAfterShellFailures : Infinity;
  const offlineCooldownMs = r.offlineCooldownSeconds * 1000;
  const policy = new RecoveryPolicy(
    { ...r, ...CONNECT_TIMING, offlineCooldownMs, kickAfterFailures: kickAfter, kickCooldownMs: r.kickCooldownSeconds * 1000 },
    settings.networkDevices,
  );
  const escalations = new Escalations(registry, adb.platform);
  const pauses = new ChargePauses(registry, adb.platform);
  /** Hub ports not cycled again until the settings (a restart) or the hub's status listing change. */
  const blocked = blockedPorts(portPower, logger, () => clock.monotonic());
  const notes = personNotes(registry);
  /** The connect backoff of the configured network addresses, which the policy decides from and moves by intents. */
  const connects = new ConnectBackoffs(settings.networkDevices, CONNECT_TIMING);
  /** The hubs whose lost phones were said, while their episode lasts: once per episode, not at every look. */
  const hubsSaid = new SaidOnce();
  const failing = new SaidOnce();
  /** What carrying out reads: the USB layer's word only once every feature is built (the layer offers it). */
  const carrying = () => ({ ...ctx, adb, portPower, connects, failing, notes, blocked, usb: ctx.shared.get(USB_EVIDENCE) });

  /** The USB layer's word on a phone on USB (not a network phone's), by its USB serials: its adb serial and its udid. */
  const usbOf = (d: DeviceSnapshot, udid: string | undefined) => {
    const evidence = ctx.shared.get(USB_EVIDENCE);
    if (!evidence || isTcpSerial(d.serial)) return undefined;
    const serials = [...new Set([d.serial, ...(udid !== undefined ? [udid, udid.replace(/-/g, '')] : [])])];
    return evidence.seen(serials, usbBus(d.usb?.usb) !== undefined ? d.usb?.usb : undefined);
  };

  /** The runner's intent for an action: the offline reconnect counted for its cooldown, a kick or cycle with the failure count. */
  const intentOf = (action: RecoveryAction) => {
    const count = { key: RECOVERY_ACTIONS, labels: [actionName(action.kind)] };
    if (action.kind === 'reconnect-offline') return { target: OFFLINE_RECONNECT_TARGET, action, count, counted: { keepMs: offlineCooldownMs } };
    const target = `${action.kind} ${targetOf(action)}`;
    if (action.kind !== 'kick' && action.kind !== 'power-cycle') return { target, action, count };
    // The phone it is for: the flight recorder keeps it in that phone's history (ActionDone).
    return { target, device: action.key, action, count, counted: { failures: registry.get(action.key)?.failures ?? 0 } };
  };

  return {
    name: 'recovery',
    actsOn: 'link',
    tickMs: 2_000,
    wanted: true,
    decide(look) {
      const { now: at } = look;
      const records = registry.list(adb.platform);
      escalations.prune(at - HOUR_MS);
      const udidOf = (d: DeviceSnapshot) => d.udid ?? escalations.of(d.serial)?.udid;
      const stateOf = (d: DeviceSnapshot) => recoveryState(d.state, pauses.of(d.serial));
      escalations.listed(
        records.map((d) => ({ serial: d.serial, state: stateOf(d), udid: udidOf(d) })),
        at,
      );
      blocked.recheck(at);
      const claims = records.map((d) => claimOf(d, udidOf(d)));
      // The port a key names: a cycle through a key naming another phone, or two, is planned and then refused (trusted).
      const keyRefused = new Map<string, string>();
      const listed = records.map((d, i) => {
        const found = mapping.portOf(claims[i]!, claims);
        if (found.kind === 'refused') keyRefused.set(d.serial, keyRefusalText(found.key, found.names));
        const place = found.kind !== 'none' ? found.value : undefined;
        const why = place && blocked.why(place.hub, place.port);
        const hubPort = place && (why ? { ...place, blocked: why } : place);
        const usb = usbOf(d, udidOf(d));
        const counted = (kind: string) => look.countedOf(`${kind} ${d.serial}`);
        // Advanced Protection as its inventory last read it, kept past its connection: an offline phone's was read before.
        const protection = ctx.platforms.facts.advancedProtection(registry, d.key);
        escalations.protection(d.serial, protection === undefined ? undefined : protection === 'on', at);
        const escalation = escalations.of(d.serial);
        return {
          serial: d.serial,
          state: stateOf(d),
          key: d.key,
          failures: d.failures,
          failingSince: d.failure?.first,
          hubPort,
          usb,
          ...(escalation?.protectedUsb !== undefined && { chargeOnlyWhenLocked: true as const }),
          // What recovery did to the phone within the hour (the runner's counted kicks and cycles), with its offline run.
          ...historyOf(counted('kick'), counted('power-cycle'), escalation?.offline),
        };
      });
      const ids = new Map(records.map((d) => [d.key, cloudIdOf(d.serial, udidOf(d))]));
      const devices = look.byTurn(listed, (d) => ids.get(d.key));
      const conflicts = conflictsOf(claims);
      const portOff = new Set(pauses.entries().flatMap(([serial, e]) => (portHeldOff(e) ? [serial] : [])));
      // The offline cooldown counts from the runner's start of the last reconnect.
      const lastOfflineReconnect = look.startsOf(OFFLINE_RECONNECT_TARGET).at(-1);
      const facts = { portOff, connects: connects.view, lastOfflineReconnect };
      // The disruptions due, cleared (or not) by the gate before the policy decides, as values; the gate is never asked
      // for one the trust rule refuses next.
      const cleared = new Map<string, Set<Disruption>>();
      const verdicts = new Map<string, HoldVerdict>();
      for (const { key, serial, action } of policy.due(devices, at, facts)) {
        let free = conflicts.has(serial) || (action === 'power-cycle' && keyRefused.has(serial));
        if (!free) {
          const verdict = look.verdict(ids.get(key));
          verdicts.set(key, { verdict, action });
          free = verdict.kind === 'free';
        }
        if (free) cleared.set(key, (cleared.get(key) ?? new Set<Disruption>()).add(action));
      }
      /** The trust rule applied to the plan (actions/trust.ts): the action as it may be taken, each refusal handed to the runner. */
      const trusted = (action: RecoveryAction) => {
        const refuse = (serial: string, name: string, why: string) =>
          look.refuse({
            key: recordKey(adb.platform, serial),
            action: name,
            why,
            line: {
              key: 'recovery-refused',
              fields: { serial, action: name, reason: why },
              text: `recovery does not ${name.replace('_', ' ')} ${serial}: ${why}; no host action is taken for it until its identity holds`,
              subject: serial,
            },
          });
        if (action.kind === 'reconnect-offline') {
          const serials = action.serials.filter((s) => !conflicts.has(s));
          for (const s of action.serials) if (conflicts.has(s)) refuse(s, 'reconnect_offline', conflictText(conflicts.get(s)!));
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
        refuse(action.serial, actionName(action.kind), why);
        return undefined;
      };
      const attention = new Map<string, { reason: string; quiet?: boolean }>();
      const lostHubs = new Set<string>();
      const intents: RecoveryIntent[] = [];
      for (const planned of connects.take(policy.tick(devices, at, { ...facts, cleared }))) {
        if (planned.kind === 'hub-lost') {
          lostHubs.add(planned.hub);
          if (hubsSaid.say(planned.hub)) intents.push({ target: planned.hub, action: planned, now: true });
          continue;
        }
        const action = trusted(planned);
        if (!action) continue;
        if (action.kind === 'needs-person') {
          attention.set(action.key, action);
          continue;
        }
        if (action.kind === 'reconnect-offline') for (const serial of action.serials) escalations.reconnected(serial);
        const intent = intentOf(action);
        // One action per target: one in flight already is not started, and its phone's history stays as it is.
        if (look.isBusy(intent.target)) continue;
        if (action.kind === 'kick' || action.kind === 'power-cycle')
          escalations.acted(action.serial, action.kind === 'kick' ? 'kick' : 'cycle', at, registry.get(action.key)?.udid);
        intents.push(intent);
      }
      // An episode ends when the hub has no phones lost together left: the next one is said again.
      hubsSaid.retain((hub) => lostHubs.has(hub));
      noteHolds(look, kickAfter, records, verdicts);
      noteAttention(notes, logger, kickAfter, records, attention);
      return intents;
    },
    apply: ({ action }) => carryOut(carrying(), action),
    failed: ({ action }, error) => carryFailed(carrying(), action, error),
  };
}

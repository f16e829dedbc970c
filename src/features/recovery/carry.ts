// Carrying out one of recovery's actions through adb or the hub tool, each under its deadline and never awaited by a
// report: its lines, the outcome the policy hears, and the counts.
import type { PersonNotes } from './notes.js';
import { limited } from '../../log/limited.js';
import type { SaidOnce } from '../../log/said-once.js';
import { lastingFailure } from '../../hub/status.js';
import type { PortPower } from '../../hub/uhubctl.js';
import type { PhoneControl } from '../../devices/control.js';
import { actionName, attentionText, targetOf } from './action-names.js';
import type { BlockedPorts } from './blocked-ports.js';
import type { UsbEvidence } from '../../devices/usb-evidence.js';
import type { FeatureContext } from '../context.js';
import { cannotCycle, type RecoveryAction } from './policy.js';
import type { ConnectBackoffs } from './connects.js';
import { counterKey } from '../../stats/counter.js';
import { errorText } from '../../util/error-text.js';

export const RECOVERY_USB = counterKey(
  'device_agent_recovery_usb_total',
  'What recovery judged from the USB layer: hub_lost (phones of one hub off USB together, once per episode), cycle_unconfirmed (a hub port power cycle the kernel log did not show drop and re-enumerate).',
  ['what'],
);

/** The adb operations recovery uses (AdbClient's, each with its deadline), on the phones of the platform it carries. */
export interface RecoveryAdb extends PhoneControl {
  reconnectOffline(): Promise<string>;
  reconnect(serial: string): Promise<string>;
  connect(address: string): Promise<string>;
}

/** What a failed action means and what happens next: the line names the layer at fault (the adb server's command, or the hub tool). */
const FAILED_ADVICE: Record<Exclude<RecoveryAction['kind'], 'connect'>, string> = {
  'reconnect-offline':
    'the adb server did not carry out `adb reconnect offline` (check that `adb devices` answers on this host); it is tried again after the offline cooldown',
  kick: 'the adb server did not carry out the kick, or the phone left adb meanwhile (check `adb devices` on this host); it counts against the hourly limit and is tried again after the kick cooldown',
  'power-cycle': "the hub tool failed for this port (its words are above); the phone's message says a person is needed: check the hub's power and its cable",
  // Never carried out, so never failed: named for the type's sake.
  'needs-person': 'a person is needed',
  'hub-lost': 'a person is needed at the hub',
};

/** What carrying out reads: the context's logger, counters and clock, and recovery's own parts. */
type CarryContext = Pick<FeatureContext<RecoveryAdb>, 'logger' | 'stats' | 'clock'> & {
  adb: RecoveryAdb;
  portPower: PortPower | undefined;
  /** Hears each connect's outcome: its backoff. */
  connects: Pick<ConnectBackoffs, 'noteOutcome'>;
  /** Network devices whose last connect failed, and why (one log line per change, not per attempt). */
  failing: SaidOnce;
  /** Recovery's call for a person on each record (only a listed device has one: it goes with its record). */
  notes: PersonNotes;
  blocked: BlockedPorts;
  /** The USB layer's word after a power cycle; none: a cycle is not checked. */
  usb: UsbEvidence | undefined;
};

/** How long after a power cycle the kernel log must show the phone's port drop and enumerate again: a phone takes a few seconds to come back on USB. */
const CYCLE_CONFIRM_MS = 20_000;
const CYCLE_POLL_MS = 1_000;

/** Carries one action out; throws when the adb server or the hub tool failed (carryFailed says what that leaves). */
export async function carryOut(c: CarryContext, action: RecoveryAction) {
  const { adb, logger } = c;
  switch (action.kind) {
    case 'reconnect-offline':
      // Not all: adb's host-wide command would touch the offline devices the booking gate holds back too.
      limited(logger).info(
        'recovery-reconnect-offline',
        { reason: action.reason },
        `${action.all ? 'adb reconnect offline' : 'adb -s SERIAL reconnect, one by one (others offline are left alone)'}: ${action.reason}`,
      );
      if (action.all) await adb.reconnectOffline();
      else for (const serial of action.serials) await adb.reconnect(serial);
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
      const since = c.clock.wall();
      const output = await c.portPower!.cycle(action.hub, action.port);
      logger.info({ serial: action.serial, hub: action.hub, port: action.port, output }, `hub ${action.hub} port ${action.port} power-cycled`);
      if (c.usb && action.usbPort !== undefined) confirmCycle(c, c.usb, action, action.usbPort, since);
      break;
    }
    case 'needs-person':
      return;
    case 'hub-lost':
      // Said once per episode (recovery.ts keeps which hubs were said), instead of a line per phone.
      logger.warn({ hub: action.hub, serials: action.serials }, `${action.reason}; recovery does not kick or cycle them one by one`);
      c.stats.counter(RECOVERY_USB).add('hub_lost');
      return;
    case 'connect': {
      const answer = await adb.connect(action.address);
      // adb keeps the transport of an address it lists offline and says so: nothing was connected.
      const held = action.listed === 'offline' && answer.startsWith('already');
      c.connects.noteOutcome(action.address, true, c.clock.monotonic(), held);
      if (held) {
        logger.debug({ address: action.address, answer }, 'adb holds the offline transport of the network device; connected again once adb drops it');
        break;
      }
      limited(logger).info(
        'recovery-connected',
        { address: action.address, reason: action.reason },
        c.failing.forget(action.address) !== undefined
          ? `network device ${action.address} connected again`
          : `network device ${action.address} connected (${action.reason})`,
        action.address,
      );
      break;
    }
  }
}

/** What a failed action leaves: the line naming the layer at fault, a connect's backoff, a port no retry can cycle, a person needed. */
export async function carryFailed(c: CarryContext, action: RecoveryAction, err: unknown) {
  const target = targetOf(action);
  const { logger } = c;
  const text = errorText(err);
  const lasting = lastingFailure(text);
  if (action.kind === 'connect') {
    c.connects.noteOutcome(action.address, false, c.clock.monotonic());
    if (c.failing.say(action.address, text)) {
      limited(logger).warn(
        'recovery-connect-failed',
        { address: action.address, err: text },
        `network device ${action.address} could not be connected (${text}); the agent keeps trying, less and less often (at most every 5 min). Check that the device is on and its adb over TCP is enabled`,
        action.address,
      );
    }
  } else if (action.kind === 'power-cycle' && lasting !== undefined) {
    // The very text the policy's needs-person gives it next (holds.ts, noteAttention): one line, not two.
    const why = await c.blocked.block(action, text, lasting);
    c.notes.set(action.key, attentionText(cannotCycle({ hub: action.hub, port: action.port, blocked: why })));
  } else {
    if (action.kind === 'power-cycle') {
      c.notes.set(action.key, `needs a person: power-cycling its hub port failed (${text}); replug its cable or reboot it`);
    }
    limited(logger).warn(
      'recovery-failed',
      { action: actionName(action.kind), target: target || undefined, err: text },
      `recovery action ${actionName(action.kind)}${target ? ` of ${target}` : ''} failed: ${text}; ${FAILED_ADVICE[action.kind]}`,
      target || undefined,
    );
  }
}

/**
 * After a power cycle, the kernel log must show the phone's port drop and enumerate again within CYCLE_CONFIRM_MS, else
 * the hub did not cycle that port: one line naming it. Checked apart from the action, whose cooldown keeps a second
 * cycle away meanwhile.
 */
function confirmCycle(c: CarryContext, usb: UsbEvidence, action: Extract<RecoveryAction, { kind: 'power-cycle' }>, usbPort: string, since: number) {
  const check = (waited: number) => {
    const seen = usb.cycled(usbPort, since);
    // No kernel log read: nothing to confirm with.
    if (!seen || (seen.dropped && seen.back)) return;
    if (waited < CYCLE_CONFIRM_MS) {
      c.clock.setTimer(() => check(waited + CYCLE_POLL_MS), CYCLE_POLL_MS, { unref: true });
      return;
    }
    const what = seen.dropped ? 'dropped but did not enumerate again' : 'did not drop';
    c.stats.counter(RECOVERY_USB).add('cycle_unconfirmed');
    limited(c.logger).warn(
      'recovery-cycle-unconfirmed',
      { serial: action.serial, hub: action.hub, port: action.port, usbPort },
      `hub ${action.hub} port ${action.port} was power-cycled, but the kernel log shows USB port ${usbPort} ${what} within ${CYCLE_CONFIRM_MS / 1000} s: the hub did not cycle it (check that hubPorts names this phone's hub and port, and that the hub switches power per port)`,
      action.serial,
    );
  };
  check(0);
}

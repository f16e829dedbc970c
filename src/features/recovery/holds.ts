// What recovery says of a phone after a look: a phone it can do no more for says a person is needed, and one the
// booking gate holds an action back from says so (the runner's hold: counted and logged once per cloud answer).
import type { ActionLook } from '../../actions/runner.js';
import type { BookingVerdict } from '../../booking/gate.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { PersonNotes } from './notes.js';
import { limited } from '../../log/limited.js';
import type { Logger } from '../../log/logger.js';
import { actionName, attentionText } from './action-names.js';
import type { Disruption } from './policy.js';
import { counterKey } from '../../stats/counter.js';

export const RECOVERY_HELD = counterKey(
  'device_agent_recovery_held_total',
  'Self-healing actions (reconnect_offline, kick, power_cycle) held back by the booking gate, by reason (booked, unknown: the cloud could not say); once per cloud answer.',
  ['action', 'reason'],
);

/** The gate's verdict on a device at this look, and on which action. */
export interface HoldVerdict {
  verdict: BookingVerdict;
  action: Disruption;
}

/**
 * A phone recovery can do no more for says a person is needed while it stays wedged; `kickAfter`: the failures a kick
 * waits for; a phone under it no longer needs recovery.
 */
export function noteAttention(
  notes: PersonNotes,
  logger: Logger,
  kickAfter: number,
  records: readonly DeviceSnapshot[],
  /** Why, by key; quiet: its line is said elsewhere (its hub's, once), the note only. */
  attention: ReadonlyMap<string, { reason: string; quiet?: boolean }>,
) {
  for (const r of records) {
    const { reason, quiet } = attention.get(r.key) ?? {};
    const noted = notes.get(r.key);
    if (reason !== undefined) {
      const text = attentionText(reason);
      if (noted !== text) {
        notes.set(r.key, text);
        if (!quiet) limited(logger).warn('recovery-needs-person', { serial: r.serial, udid: r.udid, reason }, `device ${r.udid ?? r.serial} ${text}`, r.serial);
      }
    } else if (noted !== undefined && r.state !== 'offline' && r.failures < kickAfter) {
      notes.delete(r.key);
    }
  }
}

/** A device the gate holds an action back from says so, counted and logged once per answer, until let through or not needed. */
export function noteHolds(
  look: Pick<ActionLook, 'hold' | 'release'>,
  kickAfter: number,
  records: readonly DeviceSnapshot[],
  verdicts: ReadonlyMap<string, HoldVerdict>,
) {
  for (const r of records) {
    const asked = verdicts.get(r.key);
    const verdict = asked?.verdict;
    const needed = r.state === 'offline' || r.failures >= kickAfter;
    if (verdict === undefined || verdict.kind === 'free' || !needed) {
      look.release(r.key, 'recovery', verdict?.kind === 'free' || !needed);
      continue;
    }
    if (verdict.kind === 'ask' || verdict.kind === 'waiting') continue;
    const action = actionName(asked!.action);
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
    look.hold({
      key: r.key,
      by: 'recovery',
      note: text,
      mark: `${action}|${verdict.answer ?? text}`,
      count: { key: RECOVERY_HELD, labels: [action, reason] },
      line: {
        key: 'recovery-held-back',
        fields: { serial: r.serial, udid: r.udid, action, reason },
        text: `device ${r.udid ?? r.serial} ${text}`,
        subject: r.serial,
      },
    });
  }
}

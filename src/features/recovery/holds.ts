// What recovery writes in a phone's notes after a look: a phone it can do no
// more for says a person is needed, and one the booking gate holds an action
// back from says so, counted and logged once per cloud answer.
import type { BookingVerdict } from '../../booking/gate.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { limited } from '../../log/limited.js';
import type { Logger } from '../../log/logger.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { ACTION_NAME, attentionText } from './action-names.js';
import { RECOVERY_HELD } from './counts.js';
import type { RecoveryNotebook } from './notes.js';
import type { Disruption } from './policy.js';

/** The gate's verdict on a device at this look, and on which action. */
export interface HoldVerdict {
  verdict: BookingVerdict;
  action: Disruption;
}

/** Each device's verdict at this look, by its key. */
export type Verdicts = ReadonlyMap<string, HoldVerdict>;

export interface HoldContext {
  notes: RecoveryNotebook;
  stats: Pick<AgentStats, 'counter'>;
  logger: Logger;
  /** Consecutive failures a kick waits for: a phone under it no longer needs recovery. */
  kickAfter: number;
}

/**
 * A phone recovery can do no more for says that a person is needed, as
 * long as it stays wedged; a failed power cycle says so too (carry.ts).
 */
export function noteAttention(
  c: HoldContext,
  records: readonly DeviceSnapshot[],
  attention: ReadonlyMap<string, string>,
  /** The keys whose line is said elsewhere (their hub's, once): the note only. */
  quiet: ReadonlySet<string> = new Set(),
): void {
  const { notes, logger } = c;
  for (const r of records) {
    const reason = attention.get(r.key);
    const noted = notes.of(r.key)?.attention;
    if (reason !== undefined) {
      const text = attentionText(reason);
      if (noted !== text) {
        notes.setAttention(r.key, text);
        if (!quiet.has(r.key))
          limited(logger).warn('recovery-needs-person', { serial: r.serial, udid: r.udid, reason }, `device ${r.udid ?? r.serial} ${text}`, r.serial);
      }
    } else if (noted !== undefined && r.state !== 'offline' && r.failures < c.kickAfter) {
      notes.setAttention(r.key, undefined);
    }
  }
}

/**
 * A device the gate holds an action back from says so in its message,
 * counted and logged once per answer; the message goes when the action is
 * let through or the device no longer needs it.
 */
export function noteHolds(c: HoldContext, records: readonly DeviceSnapshot[], verdicts: Verdicts): void {
  const { notes, stats, logger } = c;
  for (const r of records) {
    const asked = verdicts.get(r.key);
    const verdict = asked?.verdict;
    const needed = r.state === 'offline' || r.failures >= c.kickAfter;
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

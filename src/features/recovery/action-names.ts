// How recovery's actions are named in its lines, its metrics and the runner's
// work: shared by what refuses, holds back and carries them out.
import type { RecoveryAction } from './policy.js';

/** Metric label of each action: reconnect_offline, kick, connect, power_cycle, needs_person, hub_lost. */
export function actionName(kind: RecoveryAction['kind']) {
  return kind.replaceAll('-', '_');
}

/** What an action is done to: a serial, a network address, or the host's offline devices (''). */
export function targetOf(action: RecoveryAction) {
  if ('serial' in action) return action.serial;
  if (action.kind === 'hub-lost') return action.hub;
  return action.kind === 'connect' ? action.address : '';
}

/** A phone's message when recovery can do no more for it. */
export function attentionText(reason: string) {
  return `needs a person: ${reason}; replug its cable or reboot it`;
}

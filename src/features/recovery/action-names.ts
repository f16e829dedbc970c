// How recovery's actions are named in its lines, its metrics and the runner's
// work: shared by what refuses, holds back and carries them out.
import type { RecoveryAction } from './policy.js';

/** Metric label of each action. */
export const ACTION_NAME: Record<RecoveryAction['kind'], string> = {
  'reconnect-offline': 'reconnect_offline',
  kick: 'kick',
  connect: 'connect',
  'power-cycle': 'power_cycle',
  'needs-person': 'needs_person',
  'hub-lost': 'hub_lost',
};

/** What an action is done to: a serial, a network address, or the host's offline devices (''). */
export function targetOf(action: RecoveryAction): string {
  if (action.kind === 'kick' || action.kind === 'power-cycle' || action.kind === 'needs-person') return action.serial;
  if (action.kind === 'hub-lost') return action.hub;
  return action.kind === 'connect' ? action.address : '';
}

/** A phone's message when recovery can do no more for it. */
export function attentionText(reason: string): string {
  return `needs a person: ${reason}; replug its cable or reboot it`;
}

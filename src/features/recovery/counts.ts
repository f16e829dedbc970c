// Recovery's own series: counted by the action (recovery.ts), served by its feature's metrics() hook (feature.ts).
import { counterKey } from '../../stats/counter.js';

/** Self-healing actions carried out, by action and result. */
export const RECOVERY_ACTIONS = counterKey(
  'device_agent_recovery_actions_total',
  'Self-healing actions (reconnect_offline, kick, connect, power_cycle) by result (ok, failed).',
  ['action', 'result'],
);

/** Self-healing actions the booking gate held back, by action and reason (booked, unknown): once per cloud answer. */
export const RECOVERY_HELD = counterKey(
  'device_agent_recovery_held_total',
  'Self-healing actions (reconnect_offline, kick, power_cycle) held back by the booking gate, by reason (booked, unknown: the cloud could not say); once per cloud answer.',
  ['action', 'reason'],
);

/** What recovery left to the USB layer's evidence, by what: hub_lost (several phones of one hub off USB together: once per episode), cycle_unconfirmed (a power cycle the kernel log did not show drop and come back). */
export const RECOVERY_USB = counterKey(
  'device_agent_recovery_usb_total',
  'What recovery judged from the USB layer: hub_lost (phones of one hub off USB together, once per episode), cycle_unconfirmed (a hub port power cycle the kernel log did not show drop and re-enumerate).',
  ['what'],
);

// Charge control's own series, counted by the action and served by its feature's metrics() hook.
import { counterKey } from '../../stats/counter.js';

/** Charge pauses started. */
export const CHARGE_PAUSES = counterKey(
  'device_agent_charge_pauses_total',
  'Charge pauses started (a hub port switched off at the high mark, charge.ways).',
  [],
);

/** Charge pauses ended, by why. */
export const CHARGE_ENDS = counterKey('device_agent_charge_pause_ends_total', 'Charge pauses ended, by why (booked, max_time, low_mark, power_not_cut).', [
  'why',
]);

/** Hub port switches of charge control, by action and result. */
export const CHARGE_SWITCHES = counterKey(
  'device_agent_charge_switches_total',
  'Hub port switches of charge control (action off, on) by result (ok, failed).',
  ['action', 'result'],
);

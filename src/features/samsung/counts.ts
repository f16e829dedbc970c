// Samsung protection's own series: counted by the action (protection.ts),
// served by its feature's metrics() hook (feature.ts).
import { counterKey } from '../../stats/counter.js';

/** Writes of protect_battery, by what the read-back said (taken, not_taken). */
export const PROTECTION_WRITES = counterKey(
  'device_agent_battery_protection_writes_total',
  "Writes of Samsung's protect_battery (charge.ways = samsung), by what the read-back said (taken, not_taken).",
  ['result'],
);

/** Protection problems found (not_taken, not_honoured), each counted when it starts. */
export const PROTECTION_PROBLEMS = counterKey(
  'device_agent_battery_protection_problems_total',
  'Samsung battery protection problems found, each counted when it starts: not_taken (a write did not read back as 1), not_honoured (reads 1, charges past the cap).',
  ['problem'],
);

// The fix-it action's own series: counted by the action (fix.ts), served by its feature's metrics() hook (feature.ts).
import { counterKey } from '../../stats/counter.js';

/** Fixes of a phone's settings (readiness.fix), by what the read-back said, and the refusals said. */
export const READINESS_FIXES = counterKey(
  'device_agent_readiness_fixes_total',
  'Fixes of the settings readiness.fix may put back, by result: fixed (every write read back at the baseline), not_taken (a setting read back otherwise), interrupted (the phone could not be asked midway: unplugged, its shell cut; read again once it answers), refused (the cloud said booked or could not say: counted once per stretch, and once for a fix the cloud stopped midway, asked again before a write whose answer was 3 s old).',
  ['result'],
);

// Recovery as the report sees it: its notes in the device's message (held back while booked, a person needed), and its
// counters. Its kicks are published for the platform (transport-cut). Its action is recovery.ts.
import { holdNote } from '../../actions/runner.js';
import { PERSON_NEEDED } from '../../devices/person-needed.js';
import { hubToolItems } from '../../hub/tool-doctor.js';
import { named } from '../../platforms/doctor.js';
import type { Feature, FeatureContext } from '../context.js';
import type { RecoveryAdb } from './carry.js';
import { RECOVERY_ACTIONS, RECOVERY_HELD, RECOVERY_USB } from './counts.js';
import { recovery } from './recovery.js';

export function recoveryFeature(ctx: FeatureContext<RecoveryAdb>): Feature {
  const { registry, stats } = ctx;
  return {
    name: 'recovery',
    action: recovery(ctx),
    notes: (device) => [holdNote(registry, device.key, 'recovery'), registry.facet(PERSON_NEEDED).get(device.key)],
    // The hub tool its power cycles run, and charge control's pauses through uhubctl too.
    doctor: { config: async (env) => named('hub.tool', await hubToolItems(ctx.settings, env, 'recovery.powerCycleCommand')) },
    metrics: () => [stats.counter(RECOVERY_ACTIONS).metric(), stats.counter(RECOVERY_HELD).metric(), stats.counter(RECOVERY_USB).metric()],
  };
}

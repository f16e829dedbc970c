// Recovery as the report sees it: its note in the device's message while booked (a person needed is its verdict), and its
// counters. Its kicks are published for the platform (transport-cut). Its action is recovery.ts.
import { holdNote } from '../../actions/runner.js';
import { hubToolItems } from '../../hub/tool-doctor.js';
import { named } from '../../platforms/doctor.js';
import type { Feature, FeatureContext } from '../context.js';
import { RECOVERY_USB, type RecoveryAdb } from './carry.js';
import { RECOVERY_HELD } from './holds.js';
import { recovery, RECOVERY_ACTIONS } from './recovery.js';

export function recoveryFeature(ctx: FeatureContext<RecoveryAdb>): Feature {
  const { registry } = ctx;
  return {
    name: 'recovery',
    action: recovery(ctx),
    notes: (device) => [holdNote(registry, device.key, 'recovery')],
    // The hub tool its power cycles run, and charge control's pauses through uhubctl too.
    doctor: { config: async (env) => named('hub.tool', await hubToolItems(ctx.settings, env, 'recovery.powerCycleCommand')) },
    counters: [RECOVERY_ACTIONS, RECOVERY_HELD, RECOVERY_USB],
  };
}

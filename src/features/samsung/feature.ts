// Samsung's battery protection as the report sees it: where it stands on the phone, in its message while a problem,
// its counters, its row and its action.
import type { FeatureContext, Feature } from '../context.js';
import { PROTECTION_PROBLEMS, PROTECTION_WRITES, samsungProtection, type GlobalSettings } from './protection.js';
import { PROTECTION } from './state.js';
import { protectionRow } from './row.js';

export function samsungFeature(ctx: FeatureContext<GlobalSettings>): Feature {
  const { registry } = ctx;
  return {
    name: 'samsung-protection',
    ...protectionRow(registry, ctx.mapping),
    action: samsungProtection(ctx),
    notes: (device) => [registry.facet(PROTECTION).get(device.key)?.message],
    counters: [PROTECTION_WRITES, PROTECTION_PROBLEMS],
  };
}

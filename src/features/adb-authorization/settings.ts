// The adb authorization lapse warning's setting. Composed into the one schema
// by src/config/schema.ts.
import type { Field } from '../../config/field.js';

export const adbAuthorizationSettings = {
  'adbAuthorization.warnHours': {
    type: 'integer',
    default: 24,
    min: 0,
    max: 720,
    help:
      "a phone away from this host loses the host's adb authorization when its `adb_allowed_connection_time` (7 days by default) has passed since the host last had it connected; this long before that, one warning names it, once per absence (kept across restarts in the state directory). " +
      '0 turns the warning off ([the lab](../operations/lab.md#adb-authorization-that-lapses))',
  },
} as const satisfies Record<string, Field>;

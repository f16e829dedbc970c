// Readiness's fix-it: off by default. Composed into the one schema by src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const readinessFixSettings = {
  'readiness.fix': {
    type: 'boolean',
    default: false,
    help:
      '`true`: put back the settings of `readiness.checks` the agent may change (`stayAwake`, `windowAnimation`, `transitionAnimation`, `animatorDuration`, `verifyAdbInstalls`, `autoRotate`) ' +
      'on a phone that differs, only while the cloud says it is not booked (booked or unknown: nothing is written), at most once per 10 minutes and 3 times an hour per phone, each write read back; ' +
      'a value that does not stick is said once and not written again on that phone until it changes or the phone leaves adb and comes back. Never screen lock, developer options, USB debugging or accounts (docs/operations/lab.md)',
  },
} as const satisfies Record<string, Field>;

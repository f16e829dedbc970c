// The in-service clock's one setting. Composed into the one schema by
// src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const availabilitySettings = {
  'availability.warnBelowPercent': {
    type: 'integer',
    default: 95,
    min: 0,
    max: 100,
    help: "`doctor` warns when the host's phones were in service less than this share of the last 24 hours (percent); the alert rules carry their own threshold (docs/operations/availability.md)",
  },
} as const satisfies Record<string, Field>;

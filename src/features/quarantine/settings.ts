// Quarantine's thresholds (Google's Mobile Harness: 3 failed set-ups, out for
// 20 minutes, failures forgotten after 10). Composed into the one schema by
// src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const quarantineSettings = {
  'quarantine.failures': {
    type: 'integer',
    default: 3,
    min: 0,
    max: 100,
    help:
      'a phone that fails this many times within `quarantine.windowMinutes` is taken out of service (reported UNAVAILABLE with Appium disabled, why, since and until when, and the evidence); ' +
      'a failure is a run of failed inventories, readiness turning to failing, recovery calling for a person, the cloud refusing it (failedDevices), each counted once and only when blamed on the phone, its port, its readiness or the cloud; 0 never quarantines',
  },
  'quarantine.windowMinutes': { type: 'integer', default: 10, min: 1, max: 1440, help: 'the failures counted are those of the last this many minutes' },
  'quarantine.holdMinutes': {
    type: 'integer',
    default: 20,
    min: 1,
    max: 10080,
    help: 'how long a first quarantine lasts; it ends once this is over and the phone passes a check (an inventory answering in full, ready, not refused by the cloud), or at once with `device-agent quarantine release SERIAL`',
  },
  'quarantine.maxHoldMinutes': {
    type: 'integer',
    default: 480,
    min: 1,
    max: 43200,
    help: 'a phone quarantined again within `quarantine.forgetHours` of its last quarantine is held twice as long each time, up to this',
  },
  'quarantine.forgetHours': {
    type: 'integer',
    default: 24,
    min: 1,
    max: 720,
    help: 'after this long without a quarantine, a phone is held `quarantine.holdMinutes` again',
  },
} as const satisfies Record<string, Field>;

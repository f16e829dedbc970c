// The flight recorder's bounds. Composed into the one schema by
// src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const recorderSettings = {
  'recorder.eventsPerPhone': {
    type: 'integer',
    default: 200,
    min: 10,
    max: 10000,
    help: "what each phone's ring keeps at most (adb's and usbmuxd's word on it, the kernel's lines about its port, readiness drift, actions and their outcomes, battery and temperature, the cloud's answers), oldest first out",
  },
  'recorder.incidentsPerPhone': {
    type: 'integer',
    default: 10,
    min: 1,
    max: 1000,
    help: 'incident files kept per phone in the state directory, oldest first out',
  },
  'recorder.incidentsTotal': { type: 'integer', default: 200, min: 1, max: 10000, help: 'incident files kept in all, oldest first out' },
} as const satisfies Record<string, Field>;

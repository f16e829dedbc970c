// A fact one feature publishes for the others: recovery can do no more for a
// phone, and its message asks for a person, saying why. Recovery writes it
// (src/features/recovery/notes.ts); the in-service clock counts the phone's
// time as needing a person (src/features/availability/), and the flight
// recorder keeps the phone's recent history as an incident
// (src/features/recorder/); none imports another. By record key, dropped
// with the record: a phone that comes back is looked at afresh.
import { facetKey } from './facet.js';

export const PERSON_NEEDED = facetKey<string>('recovery-notes', 'record');

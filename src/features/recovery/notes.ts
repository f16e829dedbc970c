import type { Facet } from '../../devices/facet.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { keyParts } from '../../devices/record.js';
import { PERSON } from '../../devices/verdicts.js';

/** Recovery's call for a person on a record, by record key, as the facet it used to be. */
export type PersonNotes = Pick<Facet<string>, 'get' | 'set' | 'delete'>;

/**
 * Recovery's call for a person, as its verdict on the phone in the timeline (src/devices/verdicts.ts): the phone's
 * message says it, the in-service clock counts it needing a person, quarantine counts it a failure, the flight recorder
 * keeps an incident. Recovery writes it by record key, for the phone that record is.
 */
export function personNotes(registry: Pick<DeviceRegistry, 'udidAt' | 'timeline'>): PersonNotes {
  // The phone as the report names it: a network phone on a new connection that has not answered yet is reported as the
  // phone last identified at its address (src/platforms/android/describe.ts), not by the address.
  const udidOf = (key: string) => registry.udidAt(key) ?? keyParts(key).serial;
  return {
    get: (key) => registry.timeline.verdictBy(udidOf(key), PERSON)?.words,
    set: (key, text) => registry.timeline.verdict(udidOf(key), PERSON, { out: { state: 'needs_person', layer: 'phone' }, words: text }),
    delete: (key) => registry.timeline.verdict(udidOf(key), PERSON, undefined),
  };
}

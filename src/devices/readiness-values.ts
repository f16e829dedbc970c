// A fact readiness publishes for its fix: the values of the lab's checks a phone's last inventory read, so that the fix
// opens a shell only on a phone with a setting to put back. Kept by connection: a reading says nothing of the next.
import { facetKey } from './facet.js';

/** The values by check name. */
type ReadinessValues = Readonly<Record<string, string>>;

export const READINESS_VALUES = facetKey<ReadinessValues>('readiness-values', 'connection');

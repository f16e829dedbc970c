// A fact one feature publishes for an action: the values of the lab's
// readiness checks that a phone's last inventory read (by check name, an
// unset setting at its default). Readiness writes it (src/features/readiness/),
// its fix-it action reads it (src/features/readiness-fix/) to open a shell of
// its own only on a phone whose inventory shows a setting it may put back
// differing, and neither imports the other. Kept by connection: a reading of
// one connection says nothing of the next.
import { facetKey } from './facet.js';

/** The values by check name. */
type ReadinessValues = Readonly<Record<string, string>>;

export const READINESS_VALUES = facetKey<ReadinessValues>('readiness-values', 'connection');

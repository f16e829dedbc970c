// A capability a source publishes for readiness: the facts its platform reads of a phone in the inventory's session,
// by the name of the readiness check each answers. Readiness selects sources by this capability, never by platform
// name; a check the facts leave out is unknown, neither passed nor failed.
import { facetKey } from './facet.js';

/** The facts of one connection, by check name ("developerMode": "false"). */
type ReadinessFacts = Readonly<Record<string, string>>;

/** Written by the source that read them, dropped with the connection, as what they were read on. */
export const READINESS_FACTS = facetKey<ReadinessFacts>('readiness-facts', 'connection');

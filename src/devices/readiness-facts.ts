// A capability a source publishes for readiness: the readiness facts its
// platform reads of a phone in the inventory's own session (whether the
// host is trusted, a mode the phone has on or off, its OS version), by the
// name of the readiness check each answers (src/features/readiness/settings.ts). The
// source that reads them writes them (src/platforms/ios/source.ts);
// readiness (src/features/readiness/) judges them, selecting by this
// capability, never by the platform's name, and neither imports the other.
// A check a phone's facts leave out is unknown: neither passed nor failed.
import { facetKey } from './facet.js';

/** The facts of one connection, by check name ("developerMode": "false"). */
type ReadinessFacts = Readonly<Record<string, string>>;

/** Written by the source that read them, dropped with the connection, as what they were read on. */
export const READINESS_FACTS = facetKey<ReadinessFacts>('readiness-facts', 'connection');

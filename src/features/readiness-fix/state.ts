import { facetKey } from '../../devices/facet.js';
import type { FixEntry } from './policy.js';

/** The fix-it action's facet, by record (across reconnects); the cooldown and limit are the runner's, past the records. */
export const FIXES = facetKey<FixEntry>('readiness-fix', 'record');

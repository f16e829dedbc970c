import { facetKey } from '../../devices/facet.js';
import type { FixEntry } from './policy.js';

/**
 * The fix-it action's facet, by the phone's record: what was read and what
 * did not stick hold across its reconnects, and go with the record once adb
 * no longer lists the phone. The cooldown and the hourly limit count the
 * fixes' starts, which the runner keeps by the phone's target past its
 * records (runner.ts, startsOf).
 */
export const FIXES = facetKey<FixEntry>('readiness-fix', 'record');

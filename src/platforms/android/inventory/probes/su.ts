import type { Probe } from './types.js';
import { SU_PATHS } from '../su-paths.js';
import { parseSuListing } from '../parsers/root.js';

export const su: Probe<boolean> = {
  section: 'su',
  tier: 'slow',
  command: `ls -l ${SU_PATHS.join(' ')}`,
  fields: ['isRooted'],
  note: 'su binaries in the usual places',
  // Read by the id probe, which owns isRooted.
  parse: parseSuListing,
};

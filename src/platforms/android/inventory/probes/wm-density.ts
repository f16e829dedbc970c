import type { Probe } from './types.js';
import { parseWmDensity, type WmDensity } from '../parsers/wm.js';

export const wmDensity: Probe<WmDensity> = {
  section: 'wm_density',
  tier: 'slow',
  command: 't wm density',
  fields: ['resolution.projection'],
  note: 'physical density and its override',
  // Read by the wm_size probe, which owns resolution.
  parse: parseWmDensity,
};

import type { Probe } from './types.js';

export const wmDensity: Probe = {
  section: 'wm_density',
  tier: 'slow',
  command: 't wm density',
  fields: ['resolution.projection'],
  filled: (d) => d.resolution === undefined || d.resolution.projection !== undefined,
  note: 'physical density and its override',
};

import type { Probe } from './types.js';

export const wmSize: Probe = {
  section: 'wm_size',
  tier: 'volatile',
  command: 't wm size',
  fields: ['resolution.width', 'resolution.height', 'resolution.logical'],
  filled: (d) => d.resolution !== undefined,
  note: 'physical size and the current override',
};

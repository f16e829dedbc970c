import type { Probe } from './types.js';

export const battery: Probe = {
  section: 'battery',
  tier: 'volatile',
  command: 't dumpsys battery',
  fields: ['battery'],
  note: 'the battery service: about 1 KB',
};

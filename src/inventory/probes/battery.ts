import type { Probe } from './types.js';

export const battery: Probe = {
  section: 'battery',
  tier: 'volatile',
  command: 't dumpsys battery',
  fields: ['battery'],
  filled: (d) => Boolean(d.battery?.percentage && d.battery.status && d.battery.health),
  note: 'the battery service: about 1 KB',
};

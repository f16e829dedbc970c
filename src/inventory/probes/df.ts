import type { Probe } from './types.js';

export const df: Probe = {
  section: 'df',
  tier: 'volatile',
  command: 'df /data',
  fields: ['storage'],
  filled: (d) => d.storage !== undefined,
  note: 'the data partition only',
};

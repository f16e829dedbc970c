import type { Probe } from './types.js';

export const id: Probe = {
  section: 'id',
  tier: 'slow',
  command: 'id',
  fields: ['isRooted'],
  filled: (d) => d.isRooted !== undefined,
  note: 'adbd running as root (uid 0)',
};

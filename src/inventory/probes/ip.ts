import type { Probe } from './types.js';

export const ip: Probe = {
  section: 'ip',
  tier: 'volatile',
  command: 'ip -o -4 addr',
  fields: ['networkReachability.ipAddress'],
  filled: (d) => d.networkReachability?.ipAddress !== undefined,
  note: 'IPv4 addresses, one line each',
};

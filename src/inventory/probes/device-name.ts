import type { Probe } from './types.js';

export const deviceName: Probe = {
  section: 'device_name',
  tier: 'slow',
  command: 't settings get global device_name',
  fields: ['deviceName'],
  filled: (d) => Boolean(d.deviceName),
  note: 'user-set device name',
};

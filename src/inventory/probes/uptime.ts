import type { Probe } from './types.js';

export const uptime: Probe = {
  section: 'uptime',
  tier: 'volatile',
  command: 'cat /proc/uptime',
  fields: ['uptime', 'bootTime'],
  filled: (d) => d.uptime !== undefined && d.bootTime !== undefined,
  note: 'last in the script: the host dates the boot when the output arrives; a smaller uptime than last time means a reboot',
};

import type { Probe } from './types.js';
import { parseUptimeSeconds } from '../parsers/uptime.js';

export const uptime: Probe<number> = {
  section: 'uptime',
  tier: 'volatile',
  command: 'cat /proc/uptime',
  fields: ['uptime', 'bootTime'],
  note: 'last in the script: the host dates the boot when the output arrives; a boot instant that moved, or a smaller uptime, means a reboot',
  parse: parseUptimeSeconds,
  // bootTime by the host's clock (NTP), the output's arrival minus the uptime: a lab phone's own clock may be wrong.
  fill(info, seconds, ctx) {
    if (seconds === undefined) return;
    info.uptime = Math.floor(seconds);
    if (ctx.observedAtMs !== undefined) info.bootTime = Math.round(ctx.observedAtMs / 1000 - seconds);
  },
};

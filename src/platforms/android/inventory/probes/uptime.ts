import type { Probe } from './types.js';
import { parseUptimeSeconds } from '../parsers/uptime.js';

export const uptime: Probe<number> = {
  section: 'uptime',
  tier: 'volatile',
  command: 'cat /proc/uptime',
  fields: ['uptime', 'bootTime'],
  filled: (d) => d.uptime !== undefined && d.bootTime !== undefined,
  note: 'last in the script: the host dates the boot when the output arrives; a boot instant that moved, or a smaller uptime, means a reboot',
  parse: parseUptimeSeconds,
  // uptime in whole seconds; bootTime in epoch seconds, by the host's clock:
  // the moment the output arrived minus the uptime the script read last. Not
  // the device clock, which a lab phone without SIM or network time can have
  // wrong; the host keeps time by NTP.
  fill(info, seconds, ctx) {
    if (seconds === undefined) return;
    info.uptime = Math.floor(seconds);
    if (ctx.observedAtMs !== undefined) info.bootTime = Math.round(ctx.observedAtMs / 1000 - seconds);
  },
};

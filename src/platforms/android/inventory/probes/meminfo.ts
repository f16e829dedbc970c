import type { Probe } from './types.js';
import { parseMeminfo, type Memory } from '../../../../util/meminfo.js';

export const meminfo: Probe<Memory> = {
  section: 'meminfo',
  tier: 'volatile',
  command: 'cat /proc/meminfo',
  fields: ['memory'],
  note: 'MemTotal and MemAvailable (or Free+Buffers+Cached before kernel 3.14)',
  parse: parseMeminfo,
  fill(info, reading) {
    if (reading) info.memory = { total: reading.total, used: reading.used };
  },
};

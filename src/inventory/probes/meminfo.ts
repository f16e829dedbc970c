import type { Probe } from './types.js';

export const meminfo: Probe = {
  section: 'meminfo',
  tier: 'volatile',
  command: 'cat /proc/meminfo',
  fields: ['memory'],
  filled: (d) => d.memory !== undefined,
  note: 'MemTotal and MemAvailable (or Free+Buffers+Cached before kernel 3.14)',
};

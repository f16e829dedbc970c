import type { Probe } from './types.js';

export const proxy: Probe = {
  section: 'proxy',
  tier: 'slow',
  command: 't settings get global http_proxy',
  fields: ['networkReachability.proxy'],
  filled: (d) => d.networkReachability?.proxy !== undefined,
  note: 'global HTTP proxy setting',
};

import type { Probe } from './types.js';
import { parseProxySetting } from '../parsers/network.js';
import { reachabilityOf } from './reachability.js';

export const proxy: Probe<boolean> = {
  section: 'proxy',
  tier: 'slow',
  command: 't settings get global http_proxy',
  fields: ['networkReachability.proxy'],
  note: 'global HTTP proxy setting',
  parse: parseProxySetting,
  fill(info, proxy) {
    if (proxy !== undefined) reachabilityOf(info).proxy = proxy;
  },
};

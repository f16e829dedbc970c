import type { Probe } from './types.js';
import { parseIpAddresses, preferredAddress } from '../parsers/network.js';
import { reachabilityOf } from './reachability.js';

export const ip: Probe<string> = {
  section: 'ip',
  tier: 'volatile',
  command: 'ip -o -4 addr',
  fields: ['networkReachability.ipAddress'],
  note: 'IPv4 addresses, one line each',
  parse: (text) => preferredAddress(parseIpAddresses(text)),
  fill(info, address) {
    if (address !== undefined) reachabilityOf(info).ipAddress = address;
  },
};

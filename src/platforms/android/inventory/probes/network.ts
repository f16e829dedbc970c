// The probes of the phone's network: its address, its proxy setting and one ping, all into networkReachability.
import type { DeviceInfo } from '../../../../cloud/types.js';
import type { Probe } from './types.js';
import { parseIpAddresses, parsePing, parseProxySetting, type PingResult, preferredAddress } from '../parsers/network.js';
import { isSafeHost } from '../su-paths.js';

/** The networkReachability record the ip, proxy and ping probes add to, created on first use. */
function reachabilityOf(info: DeviceInfo) {
  info.networkReachability ??= {};
  return info.networkReachability;
}

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

export const ping: Probe<PingResult> = {
  section: 'ping',
  tier: 'volatile',
  // -w bounds the whole ping where -W (reply wait) is not honoured.
  command: (ctx) => (ctx.reachabilityHost !== undefined && isSafeHost(ctx.reachabilityHost) ? `ping -c 1 -W 2 -w 3 ${ctx.reachabilityHost}` : undefined),
  fields: ['networkReachability.host', 'networkReachability.code', 'networkReachability.status'],
  note: 'one ping to reachabilityHost, 3 s at most',
  parse: parsePing,
  fill(info, result, ctx) {
    const host = ctx.config.reachabilityHost;
    if (host === undefined) return;
    const reachability = reachabilityOf(info);
    reachability.host = host;
    if (result) {
      reachability.code = result.code;
      reachability.status = result.status;
    }
  },
};

import { isSafeHost } from '../su-paths.js';
import type { Probe } from './types.js';
import { parsePing, type PingResult } from '../parsers/network.js';
import { reachabilityOf } from './reachability.js';

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

import type { DeviceInfo } from '../../../../cloud/types.js';

/** The networkReachability record the ip, proxy and ping probes add to, created on first use. */
export function reachabilityOf(info: DeviceInfo) {
  info.networkReachability ??= {};
  return info.networkReachability;
}

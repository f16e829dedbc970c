import type { DeviceInfo, NetworkReachability } from '../../../../cloud/types.js';

/** The networkReachability record the ip, proxy and ping probes add to, created on first use. */
export function reachabilityOf(info: DeviceInfo): NetworkReachability {
  info.networkReachability ??= {};
  return info.networkReachability;
}

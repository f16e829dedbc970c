import type { DeviceInfo, NetworkReachability } from '../../../../cloud/types.js';

/**
 * The networkReachability record that the ip, proxy and ping probes each add
 * to; created on first use, so that a device none of them could read has none.
 */
export function reachabilityOf(info: DeviceInfo): NetworkReachability {
  info.networkReachability ??= {};
  return info.networkReachability;
}

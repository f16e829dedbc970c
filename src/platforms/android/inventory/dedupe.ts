// One phone can be listed twice by adb: over USB (serial R5CY743GDFY) and
// over TCP after `adb tcpip` + `adb connect` (serial 192.168.1.20:5555). Both
// inventories carry the same udid (the device's own ro.serialno), and the
// cloud must see one device.

import { STATUS_AVAILABLE, type DeviceInfo } from '../../../cloud/types.js';

function rank(info: DeviceInfo): number {
  // A ready entry beats a not-ready one; then USB (no tunnel) beats TCP.
  return (info.status === STATUS_AVAILABLE ? 0 : 2) + (info.adbTunnelInfo === undefined ? 0 : 1);
}

/**
 * One entry per udid, keeping the best-placed one (ready, then USB), in the
 * order the udids first appeared. The kept entry carries the tunnel of a
 * dropped TCP twin, so the cloud still learns that the device is reachable
 * over the network.
 */
export function dedupeByUdid(infos: readonly DeviceInfo[]): DeviceInfo[] {
  return keptByUdid(infos).map((k) => k.info);
}

/**
 * dedupeByUdid, with the index in `infos` each kept entry came from: the
 * source owes a remembered network phone that won its udid in the presence
 * ledger rather than in its list, and one that lost still hands its tunnel over.
 */
export function keptByUdid(infos: readonly DeviceInfo[]): Array<{ info: DeviceInfo; from: number }> {
  const groups = new Map<string, number[]>();
  infos.forEach((info, i) => {
    const group = groups.get(info.udid);
    if (group) group.push(i);
    else groups.set(info.udid, [i]);
  });
  const result: Array<{ info: DeviceInfo; from: number }> = [];
  for (const group of groups.values()) {
    const sorted = [...group].sort((a, b) => rank(infos[a]!) - rank(infos[b]!));
    const from = sorted[0];
    if (from === undefined) continue;
    const best = infos[from]!;
    const tunnel = best.adbTunnelInfo ?? sorted.map((i) => infos[i]!).find((info) => info.adbTunnelInfo !== undefined)?.adbTunnelInfo;
    result.push({ info: tunnel === undefined ? best : { ...best, adbTunnelInfo: tunnel }, from });
  }
  return result;
}

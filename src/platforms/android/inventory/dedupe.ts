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
  const groups = new Map<string, DeviceInfo[]>();
  for (const info of infos) {
    const group = groups.get(info.udid);
    if (group) group.push(info);
    else groups.set(info.udid, [info]);
  }
  const result: DeviceInfo[] = [];
  for (const group of groups.values()) {
    const sorted = [...group].sort((a, b) => rank(a) - rank(b));
    const best = sorted[0];
    if (!best) continue;
    const tunnel = best.adbTunnelInfo ?? sorted.find((info) => info.adbTunnelInfo !== undefined)?.adbTunnelInfo;
    result.push(tunnel === undefined ? best : { ...best, adbTunnelInfo: tunnel });
  }
  return result;
}

// One phone can be listed twice by adb, over USB and over TCP (`adb tcpip` + `adb connect`), with one udid: the cloud
// must see one device.

import { STATUS_AVAILABLE, type DeviceInfo } from '../../../cloud/types.js';

function rank(info: DeviceInfo) {
  // A ready entry beats a not-ready one; then USB (no tunnel) beats TCP.
  return (info.status === STATUS_AVAILABLE ? 0 : 2) + (info.adbTunnelInfo === undefined ? 0 : 1);
}

/**
 * One entry per udid, the best placed (ready, then USB), carrying a dropped TCP twin's tunnel, in first-seen order, with
 * the index it came from, for the source's presence entries and tunnel hand-over.
 */
export function keptByUdid(infos: readonly DeviceInfo[]) {
  return [...Map.groupBy(infos.keys(), (i) => infos[i]!.udid).values()].map((group) => {
    const [from] = group.sort((a, b) => rank(infos[a]!) - rank(infos[b]!)) as [number];
    const best = infos[from]!;
    const tunnel = group.map((i) => infos[i]!.adbTunnelInfo).find((t) => t !== undefined);
    return { info: tunnel === undefined ? best : { ...best, adbTunnelInfo: tunnel }, from };
  });
}

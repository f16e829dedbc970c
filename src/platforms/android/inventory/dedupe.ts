// One phone can be listed twice by adb, over USB and over TCP (`adb tcpip` + `adb connect`), with one udid: the cloud
// must see one device.

import { STATUS_AVAILABLE, type DeviceInfo } from '../../../cloud/types.js';

function rank(info: DeviceInfo): number {
  // A ready entry beats a not-ready one; then USB (no tunnel) beats TCP.
  return (info.status === STATUS_AVAILABLE ? 0 : 2) + (info.adbTunnelInfo === undefined ? 0 : 1);
}

/** One entry per udid, the best placed (ready, then USB), carrying a dropped TCP twin's tunnel, in first-seen order. */
export function dedupeByUdid(infos: readonly DeviceInfo[]): DeviceInfo[] {
  return keptByUdid(infos).map((k) => k.info);
}

/** dedupeByUdid with the index each kept entry came from, for the source's presence entries and tunnel hand-over. */
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

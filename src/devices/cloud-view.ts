import type { Refusal } from '../cloud/failed-devices.js';
import type { DeviceInfo } from '../cloud/types.js';

/**
 * What the cloud was told of each device, by udid. It lives in the registry
 * beside the connection records because it outlives them: a device that is
 * gone is still owed its UNPLUGGED record, and the cloud's refusals are of a
 * udid, whichever connection carried it. The report's ledger
 * (report/unplugged.ts) and the failed-device policy (cloud/failed-devices.ts)
 * keep their state here.
 */
export class CloudView {
  /** udid -> the device as the last delivered report (or an earlier run) showed it. */
  reported = new Map<string, DeviceInfo>();
  /** udid -> the UNPLUGGED record owed, until a report carrying it is delivered. */
  readonly pending = new Map<string, DeviceInfo>();
  /** udids present in some report since adb last (re)connected: their absence is news. */
  readonly seenSinceConnect = new Set<string>();
  /** udid -> the cloud's refusal. */
  readonly refusals = new Map<string, Refusal>();
}

import type { DeviceInfo } from '../cloud/types.js';

export const STATUS_UNPLUGGED = 'UNPLUGGED';

/**
 * Remembers which devices the cloud was last told about, so that a device
 * that disappears is reported once with status UNPLUGGED and then left out.
 * An UNPLUGGED record stays pending until a report carrying it is delivered.
 */
export class UnpluggedLedger {
  private reported = new Map<string, DeviceInfo>();
  private readonly pending = new Map<string, DeviceInfo>();

  /** The devices to send: the present ones plus the UNPLUGGED records still owed. */
  compose(present: DeviceInfo[]): DeviceInfo[] {
    const presentIds = new Set(present.map((d) => d.udid));
    for (const udid of this.pending.keys()) if (presentIds.has(udid)) this.pending.delete(udid);
    for (const [udid, info] of this.reported) {
      if (!presentIds.has(udid) && !this.pending.has(udid)) {
        const { message: _message, ...rest } = info;
        this.pending.set(udid, { ...rest, state: 'unplugged', status: STATUS_UNPLUGGED });
      }
    }
    return [...present, ...this.pending.values()];
  }

  /** The report holding `devices` was delivered. */
  delivered(devices: DeviceInfo[]): void {
    const next = new Map<string, DeviceInfo>();
    for (const d of devices) {
      if (d.status === STATUS_UNPLUGGED) this.pending.delete(d.udid);
      else next.set(d.udid, d);
    }
    this.reported = next;
  }
}

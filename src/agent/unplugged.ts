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

  /**
   * The devices to send: the present ones plus the UNPLUGGED records still
   * owed. `complete` is false when adb has not listed its devices yet (it is
   * down or starting): absence then says nothing, so nobody is marked gone.
   */
  compose(present: DeviceInfo[], complete = true): DeviceInfo[] {
    const presentIds = new Set(present.map((d) => d.udid));
    for (const udid of this.pending.keys()) if (presentIds.has(udid)) this.pending.delete(udid);
    for (const [udid, info] of this.reported) {
      if (complete && !presentIds.has(udid) && !this.pending.has(udid)) {
        const { message: _message, ...rest } = info;
        this.pending.set(udid, { ...rest, state: 'unplugged', status: STATUS_UNPLUGGED });
      }
    }
    return [...present, ...this.pending.values()];
  }

  /**
   * What an earlier run last told the cloud (ReportedStore): the devices in
   * it that are not present at the first report go out as UNPLUGGED once.
   */
  seed(devices: readonly DeviceInfo[]): void {
    for (const d of devices) if (!this.reported.has(d.udid)) this.reported.set(d.udid, d);
  }

  /** The present devices of the last delivered report. */
  get current(): DeviceInfo[] {
    return [...this.reported.values()];
  }

  /** The report holding `devices` was delivered; `complete` as given to compose(). */
  delivered(devices: DeviceInfo[], complete = true): void {
    const next = complete ? new Map<string, DeviceInfo>() : new Map(this.reported);
    for (const d of devices) {
      if (d.status === STATUS_UNPLUGGED) this.pending.delete(d.udid);
      else next.set(d.udid, d);
    }
    this.reported = next;
  }
}

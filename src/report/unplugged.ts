import { STATUS_UNPLUGGED, type DeviceInfo } from '../cloud/types.js';
import { withoutMessage } from '../cloud/device-message.js';

/**
 * Remembers which devices the cloud was last told about, so that a device that disappears is reported once with status
 * UNPLUGGED and then left out. An UNPLUGGED record stays pending until a report carrying it is delivered.
 */
export class UnpluggedLedger {
  // By udid, the cloud's key: a gone device is still owed its UNPLUGGED record, past the device's records.
  /** udid -> the device as the last delivered report (or an earlier run) showed it. */
  private reported = new Map<string, DeviceInfo>();
  /** udid -> the UNPLUGGED record owed, until a report carrying it is delivered. */
  private readonly pending = new Map<string, DeviceInfo>();
  /** udids present in some report since adb last (re)connected: their absence is news. */
  private readonly seenSinceConnect = new Set<string>();

  /** adb (re)connected: until its list is complete, only devices seen since then can be called gone. */
  sourceConnected(): void {
    this.seenSinceConnect.clear();
  }

  /**
   * The devices to send: the present ones plus the UNPLUGGED records still owed. `complete` is false while adb's list is
   * not complete: then only a device seen since adb connected and absent now is gone, so an adb restart flaps no phone.
   * `nothingGone`: a source did not answer, so no device becomes UNPLUGGED in this report.
   */
  compose(present: DeviceInfo[], complete = true, nothingGone = false): DeviceInfo[] {
    const presentIds = new Set(present.map((d) => d.udid));
    for (const udid of presentIds) this.seenSinceConnect.add(udid);
    // Bounded by the devices present or reported: the others are settled either way.
    for (const udid of this.seenSinceConnect) if (!presentIds.has(udid) && !this.reported.has(udid)) this.seenSinceConnect.delete(udid);
    for (const udid of this.pending.keys()) if (presentIds.has(udid)) this.pending.delete(udid);
    for (const [udid, info] of this.reported) {
      if (!nothingGone && (complete || this.seenSinceConnect.has(udid)) && !presentIds.has(udid) && !this.pending.has(udid)) {
        this.pending.set(udid, { ...withoutMessage(info), state: 'unplugged', status: STATUS_UNPLUGGED });
      }
    }
    return [...present, ...this.pending.values()];
  }

  /** What an earlier run last told the cloud: those not present at the first report go out UNPLUGGED once. */
  seed(devices: readonly DeviceInfo[]): void {
    for (const d of devices) if (!this.reported.has(d.udid)) this.reported.set(d.udid, d);
  }

  /** Whether an absent device would be called gone now, as compose() decides (the USB layer calls it off adb instead). */
  absentIsGone(udid: string, complete: boolean): boolean {
    return complete || this.seenSinceConnect.has(udid);
  }

  /** Whether some device reported earlier has not been seen since adb connected: only adb settling can tell if it is gone. */
  get awaitingSettle(): boolean {
    for (const udid of this.reported.keys()) if (!this.seenSinceConnect.has(udid)) return true;
    return false;
  }

  /** The device as the cloud was last told of it (delivered present, or an earlier run's), while it is. */
  told(udid: string): DeviceInfo | undefined {
    return this.reported.get(udid);
  }

  /** The present devices of the last delivered report. */
  get current(): DeviceInfo[] {
    return [...this.reported.values()];
  }

  /** The report holding `devices` was delivered; `complete` as given to compose(). */
  delivered(devices: DeviceInfo[], complete = true): void {
    const next = complete ? new Map<string, DeviceInfo>() : new Map(this.reported);
    for (const d of devices) {
      if (d.status === STATUS_UNPLUGGED) {
        this.pending.delete(d.udid);
        next.delete(d.udid);
        this.seenSinceConnect.delete(d.udid);
      } else next.set(d.udid, d);
    }
    this.reported = next;
  }
}

import { STATUS_UNPLUGGED, type DeviceInfo, type FailedDevice } from '../cloud/types.js';
import { withoutMessage } from '../cloud/device-message.js';
import { Timeline } from '../devices/timeline.js';

/**
 * Which devices are owed an UNPLUGGED record: a device the cloud holds present (the timeline's word, its one store) that
 * disappears is reported once with status UNPLUGGED and then left out. An UNPLUGGED record stays pending until a report
 * carrying it is delivered, and goes out only while absence can call the device gone.
 */
export class UnpluggedLedger {
  constructor(private readonly timeline = new Timeline()) {}

  /** udid -> the UNPLUGGED record owed, until a report carrying it is delivered. */
  private readonly pending = new Map<string, DeviceInfo>();
  /** udids present in some report since adb last (re)connected: their absence is news. */
  private readonly seenSinceConnect = new Set<string>();

  /** adb (re)connected: until its list is complete, only devices seen since then can be called gone. */
  sourceConnected() {
    this.seenSinceConnect.clear();
  }

  /**
   * The devices to send: the present ones plus the UNPLUGGED records still owed. `complete` is false while adb's list is
   * not complete: then only a device seen since adb connected and absent now is gone, so an adb restart flaps no phone.
   * `nothingGone`: a source did not answer, so no device becomes UNPLUGGED in this report. `unseen`: the devices the
   * report holds that no source listed (carried while they cannot be called gone): they count as unseen.
   */
  compose(present: DeviceInfo[], complete = true, nothingGone = false, unseen: ReadonlySet<string> = new Set()) {
    const presentIds = new Set(present.map((d) => d.udid));
    // `unseen`: present in the report only because no source lists them yet (the report carries them): not seen.
    for (const udid of presentIds) if (!unseen.has(udid)) this.seenSinceConnect.add(udid);
    // Bounded by the devices present or reported: the others are settled either way.
    for (const udid of this.seenSinceConnect) if (!presentIds.has(udid) && !this.told(udid)) this.seenSinceConnect.delete(udid);
    for (const udid of this.pending.keys()) if (presentIds.has(udid)) this.pending.delete(udid);
    for (const info of this.timeline.present) {
      const { udid } = info;
      if (!nothingGone && this.absentIsGone(udid, complete) && !presentIds.has(udid) && !this.pending.has(udid)) {
        this.pending.set(udid, { ...withoutMessage(info), state: 'unplugged', status: STATUS_UNPLUGGED });
      }
    }
    // A debt from before is said only while absence could call the device gone now: after adb (re)connected it may be
    // back on its port and off adb, which only a complete list lets the USB layer tell.
    return [...present, ...[...this.pending.values()].filter((d) => !nothingGone && this.absentIsGone(d.udid, complete))];
  }

  /** What an earlier run last told the cloud: those not present at the first report go out UNPLUGGED once. */
  seed(devices: readonly DeviceInfo[]) {
    this.timeline.seed(devices);
  }

  /** Whether an absent device would be called gone now, as compose() decides (the USB layer calls it off adb instead). */
  absentIsGone(udid: string, complete: boolean) {
    return complete || this.seenSinceConnect.has(udid);
  }

  /** Whether some device reported earlier has not been seen since adb connected: only adb settling can tell if it is gone. */
  get awaitingSettle() {
    return this.timeline.present.some((d) => !this.seenSinceConnect.has(d.udid));
  }

  /** The device as the cloud was last told of it (delivered present, or an earlier run's), while it is. */
  told(udid: string) {
    const info = this.timeline.toldOf(udid);
    return info?.status === STATUS_UNPLUGGED ? undefined : info;
  }

  /** The devices the cloud holds present. */
  get current() {
    return this.timeline.present;
  }

  /**
   * The report holding `devices` was delivered, `complete` as given to compose(), with the devices the cloud refused: the
   * cloud's word goes to the timeline (its one store), and the UNPLUGGED records it carried are owed no more.
   */
  delivered(devices: readonly DeviceInfo[], complete = true, refused: readonly FailedDevice[] = [], at = 0) {
    this.timeline.delivered(devices, refused, at, complete);
    for (const d of devices) {
      if (d.status !== STATUS_UNPLUGGED) continue;
      this.pending.delete(d.udid);
      this.seenSinceConnect.delete(d.udid);
    }
  }
}

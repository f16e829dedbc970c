import { STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import { messageOf, type ChargePauses } from './pauses.js';
import type { CarriedKinds } from '../../devices/presence.js';
import { withNotes } from '../../cloud/device-message.js';

/** The report's devices with the pauses applied to paused phones still on adb; one the ledger carried for its pause is left as is. */
export function withChargePauses(devices: readonly DeviceInfo[], pauses: Pick<ChargePauses, 'entries'>, carried: CarriedKinds) {
  const out = [...devices];
  for (const [, entry] of pauses.entries()) {
    const pause = entry.pause;
    if (!pause) continue;
    const i = out.findIndex((d) => d.udid === pause.udid);
    // Worded by the ledger's entry already (ChargePauses.set); a phone another reason carries (a failed source's last state) still gets the pause's note.
    if (i < 0 || carried.get(out[i]!.udid) === 'charge-paused') continue;
    // Once the port is on again, a phone back on adb speaks for itself; before the off switch worked it still charges.
    if (!pause.ended && pause.cut !== undefined) out[i] = withNotes({ ...out[i]!, status: STATUS_UNAVAILABLE }, [messageOf(pause)]);
  }
  return out;
}

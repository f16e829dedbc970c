import { STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import type { ChargePause, ChargePauses } from '../../hub/charge-pauses.js';
import { utcText } from '../../util/clock.js';
import { composeMessage, withNotes, withoutMessage } from '../../cloud/device-message.js';

/**
 * The report's devices with the charge pauses applied. A phone whose hub
 * port is off on purpose drops off adb, and a device absent from a report
 * would go out as UNPLUGGED (report/unplugged.ts): until it is back, it is
 * reported with its last inventory, UNAVAILABLE, and a message saying why
 * and until when. A paused phone still on adb is UNAVAILABLE with the same
 * message.
 */
export function withChargePauses(devices: readonly DeviceInfo[], pauses: Pick<ChargePauses, 'entries'>): DeviceInfo[] {
  const out = [...devices];
  for (const [, entry] of pauses.entries()) {
    const pause = entry.pause;
    if (!pause) continue;
    const message = messageOf(pause);
    const i = out.findIndex((d) => d.udid === pause.udid);
    if (i >= 0) {
      // Once the port is on again, a phone back on adb speaks for itself; while the off switch is in
      // flight it is still on adb and charging, so the pause is not news yet (it goes out once the switch worked).
      if (!pause.ended && entry.switching !== 'off') out[i] = withNotes({ ...out[i]!, status: STATUS_UNAVAILABLE }, [message]);
      continue;
    }
    // The battery detail is the agent's own (health/monitor.ts): no report carries it.
    const { batteryDetail: _detail, ...last } = pause.info;
    out.push({ ...withoutMessage(last), status: STATUS_UNAVAILABLE, ...composeMessage([message]) });
  }
  return out;
}

function messageOf(pause: Readonly<ChargePause>): string {
  const place = `hub ${pause.hub} port ${pause.port}`;
  const { ended } = pause;
  if (!ended)
    return (
      `charge paused to spare the battery: ${place} switched off at ${pause.percent} %; ` +
      `on again by ${utcText(pause.untilWall)} at the latest, or as soon as the cloud books it`
    );
  const why = ended.why.replace(/_/g, ' ');
  if (!ended.switchedOn) return `charge pause over (${why}) but ${place} is not on again yet; the agent keeps trying`;
  return `charge pause over (${why}): ${place} on again since ${utcText(ended.atWall)}; waiting for the phone to come back on adb`;
}

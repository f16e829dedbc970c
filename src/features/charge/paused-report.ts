import { STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import { ChargePauses, type ChargeEntry, type ChargePause } from './pauses.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { CarriedKinds, OwedDevice, PresenceBound, PresenceReason } from '../../devices/presence.js';
import { recordKey } from '../../devices/record.js';
import { utcText } from '../../util/clock.js';
import { withNotes } from '../../cloud/device-message.js';

/**
 * A phone whose hub port is off on purpose drops off adb, and an absent device would go out UNPLUGGED: while charge
 * control keeps its pause, the phone is owed in the presence ledger, UNAVAILABLE, with why and until when. Every write
 * of a pause writes its entry too, so the ledger says what the facet says.
 */
export class OwedPauses extends ChargePauses {
  constructor(
    private readonly registry: Pick<DeviceRegistry, 'facet' | 'presence'>,
    platform: ChargePauses['platform'],
  ) {
    super(registry, platform);
  }

  override set(serial: string, entry: ChargeEntry) {
    super.set(serial, entry);
    this.registry.presence.owe(this.reason(serial), entry.pause ? [owedPause(entry.pause, recordKey(this.platform, serial))] : [], WHILE_PAUSED);
  }

  override forget(serial: string) {
    super.forget(serial);
    this.registry.presence.end(this.reason(serial));
  }

  private reason(serial: string): PresenceReason {
    return { kind: 'charge-paused', scope: recordKey(this.platform, serial) };
  }
}

/** Charge control ends the pause itself (booked, its longest time, the phone back or awaited long enough): its bound is the pause's own. */
const WHILE_PAUSED: PresenceBound = { while: 'charge control keeps the pause (its port off, or the phone awaited back)' };

/** A paused phone as the ledger owes it while it is off adb (the report carries it with its last inventory): UNAVAILABLE, with why and until when. */
export function owedPause(pause: Readonly<ChargePause>, key: string): OwedDevice {
  return { udid: pause.udid, key, says: { status: STATUS_UNAVAILABLE }, why: messageOf(pause) };
}

/** The report's devices with the pauses applied to paused phones still on adb; one the ledger carried for its pause is left as is. */
export function withChargePauses(devices: readonly DeviceInfo[], pauses: Pick<ChargePauses, 'entries'>, carried: CarriedKinds) {
  const out = [...devices];
  for (const [, entry] of pauses.entries()) {
    const pause = entry.pause;
    if (!pause) continue;
    const i = out.findIndex((d) => d.udid === pause.udid);
    // Worded by owedPause already; a phone another reason carries (a failed source's last state) still gets the pause's note.
    if (i < 0 || carried.get(out[i]!.udid) === 'charge-paused') continue;
    // Once the port is on again, a phone back on adb speaks for itself; before the off switch worked it still charges.
    if (!pause.ended && pause.cut !== undefined) out[i] = withNotes({ ...out[i]!, status: STATUS_UNAVAILABLE }, [messageOf(pause)]);
  }
  return out;
}

function messageOf(pause: Readonly<ChargePause>) {
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

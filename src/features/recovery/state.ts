// The state recovery sees a phone in, beside adb's: charge control's hold on
// its port counts first.
import { portHeldOff, type ChargeEntry } from '../charge/pauses.js';

/**
 * The state recovery sees a phone in: one whose port charge control holds off
 * (from before its off switch until its on switch worked) is off adb on purpose. A phone over TCP stays listed
 * offline while adb retries it, one on Wi-Fi adb charged from the hub stays
 * ready: neither is reconnected, kicked or power-cycled (a cycle would switch
 * its port on mid-pause), and an offline run ends. Once the port is on again,
 * recovery helps it back like any other.
 */
export function recoveryState(state: string, charge: Pick<ChargeEntry, 'pause'> | undefined): string {
  return charge !== undefined && portHeldOff(charge) ? 'charge-paused' : state;
}

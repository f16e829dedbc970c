// The state recovery sees a phone in, beside adb's: charge control's hold on its port counts first.
import { portHeldOff, type ChargeEntry } from '../charge/pauses.js';

/**
 * The state recovery sees a phone in: one whose port charge control holds off is off adb on purpose, so neither
 * reconnected, kicked nor power-cycled (a cycle would switch its port on mid-pause), and its offline run ends.
 */
export function recoveryState(state: string, charge: Pick<ChargeEntry, 'pause'> | undefined) {
  return charge !== undefined && portHeldOff(charge) ? 'charge-paused' : state;
}

// Charge control as the report sees it: a phone whose port is off on purpose
// is off adb, yet reported (UNAVAILABLE with its last inventory and why,
// never UNPLUGGED: paused-report.ts), and no other reader reports it for it.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { ChargePauses, chargeEntries, portHeldOff } from '../../hub/charge-pauses.js';
import { keyParts } from '../../devices/record.js';
import { withChargePauses } from './paused-report.js';

export function chargeFeature(registry: Pick<DeviceRegistry, 'facet'>): DeviceFeature {
  return {
    name: 'charge-control',
    reportsAbsent: (key) => {
      const { platform, serial } = keyParts(key);
      const charge = new ChargePauses(registry, platform).of(serial);
      return charge !== undefined && portHeldOff(charge);
    },
    // After health: a paused phone's last reading is not a new one to judge.
    annotate: (devices) => withChargePauses(devices, { entries: () => chargeEntries(registry) }),
  };
}

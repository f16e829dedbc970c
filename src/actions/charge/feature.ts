// Charge control as the report sees it: a phone whose port is off on purpose
// is off adb, yet reported (UNAVAILABLE with its last inventory and why,
// never UNPLUGGED: paused-report.ts), and no other reader reports it for it.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { ChargePauses, portHeldOff } from '../../hub/charge-pauses.js';
import { withChargePauses } from './paused-report.js';

export function chargeFeature(registry: Pick<DeviceRegistry, 'facet'>): DeviceFeature {
  const pauses = new ChargePauses(registry);
  return {
    name: 'charge-control',
    reportsAbsent: (key) => {
      const charge = pauses.of(key.slice(key.indexOf('/') + 1));
      return charge !== undefined && portHeldOff(charge);
    },
    // After health: a paused phone's last reading is not a new one to judge.
    annotate: (devices) => withChargePauses(devices, pauses),
  };
}

// Samsung's battery protection as the views see it: the row's chargeState (after the way in `list`'s CHARGE column)
// and a gauge labelled by it.
import type { DeviceFeature } from '../../devices/feature.js';
import type { DeviceRow } from '../../devices/feature-view.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { DeviceMapping } from '../../actions/device-mapping.js';
import { PROTECTION } from './state.js';

export function protectionRow(
  registry: Pick<DeviceRegistry, 'facet'>,
  /** The actions' look-up of a device's way. */
  mapping: DeviceMapping,
): Pick<DeviceFeature, 'fields' | 'gauges'> {
  return {
    fields: () => [
      {
        key: 'chargeState',
        place: { before: 'up' },
        value: (s) => {
          if (mapping.wayApplied(s.claim, s.claims, s.info.modelName) !== 'samsung') return undefined;
          // Pending until it is read, and for a phone no source lists now.
          return (s.device && registry.facet(PROTECTION).get(s.device.key)?.state) ?? 'pending';
        },
      },
    ],
    gauges: () => [
      {
        name: 'device_agent_device_battery_protection',
        help: "Where Samsung's battery protection stands on the device (charge.ways = samsung), 1 for its state: pending, on, not-taken, not-honoured, not-samsung, unreadable; absent for other ways.",
        place: { after: 'device_agent_device_last_inventory_timestamp_seconds' },
        samples: (r) => {
          const state = (r as DeviceRow & { chargeState?: string }).chargeState;
          return state === undefined ? [] : [{ labels: { udid: r.udid, state }, value: 1 }];
        },
      },
    ],
  };
}

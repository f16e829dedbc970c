// Charge control as the views see it: the way that applies to a device, until when a paused phone's port stays off,
// `list`'s CHARGE column and the paused gauge. A paused phone is off adb: its row takes its serial from the pause.
import type { DeviceFeature } from '../../devices/feature.js';
import { udidSample, type DeviceRow } from '../../devices/feature-view.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { pauseOfUdid } from './pauses.js';
import { utcText } from '../../util/clock.js';
import type { DeviceMapping } from '../../actions/device-mapping.js';

/** What charge control adds to a device's row, and the state of its way another feature may add. */
interface ChargeRow extends DeviceRow {
  /** The way of charge control that applies to it (charge.ways), when not off. */
  chargeWay?: string;
  /** Where that way stands on the phone, where the feature that carries the way out says it (on, pending, ...). */
  chargeState?: string;
  /** While its charge is paused: when the port goes on again at the latest (ms, wall clock). */
  chargePausedUntil?: number;
}

export function chargeRow(
  registry: Pick<DeviceRegistry, 'facet'>,
  /** The actions' look-up of a device's way. */
  mapping: DeviceMapping,
): Pick<DeviceFeature, 'serialOf' | 'fields' | 'columns' | 'gauges'> {
  return {
    serialOf: (udid) => pauseOfUdid(registry, udid)?.serial,
    fields: () => [
      {
        key: 'chargeWay',
        place: { after: 'product' },
        value: (s) => {
          const way = mapping.wayApplied(s.claim, s.claims, s.info.modelName);
          return way === 'off' ? undefined : way;
        },
      },
      {
        key: 'chargePausedUntil',
        place: { before: 'up' },
        value: (s) => {
          const pause = pauseOfUdid(registry, s.info.udid);
          return pause && !pause.ended ? pause.untilWall : undefined;
        },
      },
    ],
    columns: () => [{ title: 'CHARGE', place: { after: 'USB' }, cell: chargeCell, optional: true }],
    gauges: () => [
      {
        name: 'device_agent_device_charge_paused',
        help: 'Whether charge control has switched its hub port off on purpose (1) or not (0); absent when no way of charge control applies to it (charge.ways).',
        place: { before: 'device_agent_device_storage_free_bytes' },
        // Its own fields of a row, as it added them.
        samples: (r: ChargeRow) => udidSample(r, r.chargePausedUntil !== undefined ? 1 : r.chargeWay === undefined ? undefined : 0),
      },
    ],
  };
}

/** The charge control of a phone: paused (until when at the latest), or the way that applies to it (with its state, where its way says one). */
function chargeCell(r: ChargeRow) {
  if (r.chargePausedUntil !== undefined) return `paused to ${utcText(r.chargePausedUntil).slice(11)}`;
  if (r.chargeState !== undefined) return `${r.chargeWay}:${r.chargeState}`;
  return r.chargeWay ?? '';
}

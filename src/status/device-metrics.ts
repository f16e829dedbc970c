import type { DeviceRow } from './device-rows.js';
import type { Metric } from '../util/metric.js';
import { gaugesOf, type DeviceFeature } from '../devices/feature.js';
import { placed, udidSample } from '../devices/feature-view.js';

// Per-device series, each labelled udid, for a lab dashboard. A device's series go with its last report: rows are the
// devices of that report. The features add theirs (DeviceFeature.gauges), each in its place among these.

type Value = (row: DeviceRow) => number | undefined;

const GAUGES: Array<[name: string, help: string, value: Value]> = [
  ['device_agent_device_up', 'Whether the device is ready and answers its inventory (1) or not (0).', (r) => (r.up ? 1 : 0)],
  ['device_agent_device_battery_level_percent', 'Battery level.', (r) => r.batteryPercent],
  ['device_agent_device_battery_temperature_celsius', 'Battery temperature.', (r) => r.batteryCelsius],
  [
    'device_agent_device_battery_charging',
    'Whether the battery is charging (1) or not (0); absent when the battery does not say.',
    (r) => (r.charging === undefined ? undefined : r.charging ? 1 : 0),
  ],
  ['device_agent_device_storage_free_bytes', 'Free storage of the data partition.', (r) => r.storageFreeBytes],
  ['device_agent_device_memory_available_bytes', 'Memory available to apps.', (r) => r.memoryAvailableBytes],
  [
    'device_agent_device_last_inventory_timestamp_seconds',
    'When the last inventory of the device answered (Unix time).',
    (r) => (r.inventoriedAt === undefined ? undefined : Math.floor(r.inventoriedAt / 1000)),
  ],
];

/**
 * device_agent_device_info holds what a device is and where it is plugged; its adb state is a series of its own, so a
 * state change or a new transport starts no new info series. `features`: whose gauges join these.
 */
export function deviceMetrics(rows: readonly DeviceRow[], features: readonly DeviceFeature[]): Metric[] {
  const info: Metric = {
    name: 'device_agent_device_info',
    help: 'A device of the last report, with what identifies it and where it is plugged.',
    type: 'gauge',
    samples: rows.map((r) => ({
      labels: {
        udid: r.udid,
        serial: r.serial,
        model: r.model ?? '',
        platform: r.platform,
        os_version: r.version ?? '',
        usb: r.usb ?? '',
        hub: r.hub ?? '',
        hub_port: r.hubPort === undefined ? '' : String(r.hubPort),
        product: r.product ?? '',
      },
      value: 1,
    })),
  };
  const state: Metric = {
    name: 'device_agent_device_state',
    help: "A device of the last report in its state as its source says it (adb's device, unauthorized, offline...; an iPhone's paired, unpaired, not-answering), by udid.",
    type: 'gauge',
    samples: rows.map((r) => ({ labels: { udid: r.udid, state: r.state }, value: 1 })),
  };
  const gauges: Metric[] = GAUGES.map(([name, help, value]) => ({
    name,
    help,
    type: 'gauge',
    samples: rows.flatMap((r) => udidSample(r, value(r))),
  }));
  const added = gaugesOf(features).map((g) => ({
    place: g.place,
    item: { name: g.name, help: g.help, type: 'gauge' as const, samples: rows.flatMap((r) => g.samples(r)) },
  }));
  return placed([info, state, ...gauges], (m) => m.name, added);
}

import type { DeviceRow } from './device-rows.js';
import type { Metric } from '../util/metric.js';
import type { PlatformName } from '../platforms/source.js';
import { PROBLEMS } from '../health/rules.js';

// Per-device series, each labelled udid, for a lab dashboard. A device's
// series go with its last report: rows are the devices of that report.

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
  [
    'device_agent_device_battery_full_seconds',
    'How long the battery has been full on external power without a break; 0 when it is not.',
    (r) => r.batteryFullSeconds,
  ],
  [
    'device_agent_device_charger_voltage_volts',
    'The most the plugged charger offers (dumpsys battery "Max charging voltage"), where the phone reports it.',
    (r) => (r.chargerMillivolts === undefined ? undefined : r.chargerMillivolts / 1000),
  ],
  ['device_agent_device_battery_cycles', 'Full charge cycles of the battery, where the phone reports them.', (r) => r.batteryCycles],
  [
    'device_agent_device_battery_health_percent',
    'State of health of the battery in % of its design capacity, where the phone reports it.',
    (r) => r.batteryHealthPercent,
  ],
  [
    'device_agent_device_charge_paused',
    'Whether charge control has switched its hub port off on purpose (1) or not (0); absent when no way of charge control applies to it (charge.ways).',
    (r) => (r.chargePausedUntil !== undefined ? 1 : r.chargeWay === undefined ? undefined : 0),
  ],
  ['device_agent_device_storage_free_bytes', 'Free storage of the data partition.', (r) => r.storageFreeBytes],
  ['device_agent_device_memory_available_bytes', 'Memory available to apps.', (r) => r.memoryAvailableBytes],
  [
    'device_agent_device_last_inventory_timestamp_seconds',
    'When the last inventory of the device answered (Unix time).',
    (r) => (r.inventoriedAt === undefined ? undefined : Math.floor(r.inventoriedAt / 1000)),
  ],
];

/** `names`: every platform's (src/agent/platforms.ts), whose version labels every device_agent_device_info sample carries, empty but on its own platform's devices. */
export function deviceMetrics(rows: readonly DeviceRow[], names: readonly PlatformName[]): Metric[] {
  const versionLabels = names.flatMap((n) => (n.versionLabel === undefined ? [] : [n.versionLabel]));
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
        ...Object.fromEntries(versionLabels.map((label) => [label, r.versionLabel === label ? (r.version ?? '') : ''])),
        state: r.state,
        usb: r.usb ?? '',
        hub: r.hub ?? '',
        hub_port: r.hubPort === undefined ? '' : String(r.hubPort),
        transport_id: r.transportId ?? '',
        product: r.product ?? '',
      },
      value: 1,
    })),
  };
  const gauges: Metric[] = GAUGES.map(([name, help, value]) => ({
    name,
    help,
    type: 'gauge',
    samples: rows.flatMap((r) => {
      const v = value(r);
      return v === undefined ? [] : [{ labels: { udid: r.udid }, value: v }];
    }),
  }));
  const protection: Metric = {
    name: 'device_agent_device_battery_protection',
    help: "Where Samsung's battery protection stands on the device (charge.ways = samsung), 1 for its state: pending, on, not-taken, not-honoured, not-samsung, unreadable; absent for other ways.",
    type: 'gauge',
    samples: rows.flatMap((r) => (r.chargeState === undefined ? [] : [{ labels: { udid: r.udid, state: r.chargeState }, value: 1 }])),
  };
  const problems: Metric = {
    name: 'device_agent_device_problem',
    help: `A health problem of the device (${PROBLEMS.join(', ')}); 1 while it lasts.`,
    type: 'gauge',
    samples: rows.flatMap((r) => r.problems.map((problem) => ({ labels: { udid: r.udid, problem }, value: 1 }))),
  };
  return [info, ...gauges, protection, problems];
}

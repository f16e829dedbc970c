// Health under the DeviceFeature contract: the report's judge of each fresh reading (monitor.ts), and what the views
// show: the battery state the rules keep and the problems that hold, as row fields, `list` columns and gauges.
import { udidSample, type RowSubject } from '../../devices/feature-view.js';
import { hostHeatOf } from '../host-heat/host-heat.js';
import { batteryItems } from './battery-doctor.js';
import type { Feature, FeatureContext } from '../context.js';
import { batteryOf, HealthMonitor, problemsOf } from './monitor.js';
import { PROBLEMS } from './rules.js';
import { healthColumn, problemsColumn } from './list-columns.js';
import { healthOf } from './row.js';

export function healthFeature(ctx: FeatureContext): Feature {
  const { registry, clock } = ctx;
  const signals = (s: RowSubject) => batteryOf(registry, s.device?.key)?.signals;
  const battery = { after: 'batteryHealth' };
  const afterCharging = { after: 'device_agent_device_battery_charging' };
  const monitor = new HealthMonitor(ctx.settings.health, ctx.logger, () => clock.wall(), hostHeatOf(ctx));
  return {
    name: 'health',
    judge: (devices, sources) => monitor.apply(devices, registry, sources.shell),
    // One battery reading of each ready phone against the rules (held full takes readings over time: the daemon's).
    doctor: {
      reads: ['battery'],
      phone: (p) =>
        p.battery
          ? batteryItems(p.serial, p.battery, ctx.settings.health)
          : [{ id: 'phone.battery', phone: p.serial, status: 'unread', finding: p.unread ?? 'its shell printed no battery part' }],
    },
    fields: () => [
      { key: 'batteryFullSeconds', place: battery, value: (s) => signals(s)?.heldFullSeconds },
      { key: 'chargerMillivolts', place: battery, value: (s) => signals(s)?.chargerMillivolts },
      { key: 'problems', place: { after: 'up' }, value: (s) => [...problemsOf(registry, s.device?.key)] },
    ],
    columns: () => [healthColumn, problemsColumn],
    gauges: () => [
      {
        name: 'device_agent_device_battery_full_seconds',
        help: 'How long the battery has been full on external power without a break; 0 when it is not.',
        place: afterCharging,
        samples: (r) => udidSample(r, healthOf(r).batteryFullSeconds),
      },
      {
        name: 'device_agent_device_charger_voltage_volts',
        help: 'The most the plugged charger offers (dumpsys battery "Max charging voltage"), where the phone reports it.',
        place: afterCharging,
        samples: (r) => {
          const mv = healthOf(r).chargerMillivolts;
          return udidSample(r, mv === undefined ? undefined : mv / 1000);
        },
      },
      {
        name: 'device_agent_device_problem',
        help: `A health problem of the device (${PROBLEMS.join(', ')}); 1 while it lasts.`,
        place: { after: 'device_agent_device_last_inventory_timestamp_seconds' },
        samples: (r) => (healthOf(r).problems ?? []).map((problem) => ({ labels: { udid: r.udid, problem }, value: 1 })),
      },
    ],
  };
}

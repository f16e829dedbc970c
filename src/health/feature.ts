// Health under the DeviceFeature contract: the report's judge of each fresh
// reading (HealthMonitor.apply, monitor.ts: a problem's message, status and
// log lines, written to health's two facets), and what the views show of
// them: what the rules keep of a device's battery beyond the report's
// figures and the problems that hold, as fields of its row, `list`'s battery
// and PROBLEMS columns (list-columns.ts) and per-device gauges.
import type { DeviceFeature } from '../devices/feature.js';
import { udidSample, type RowSubject } from '../devices/feature-view.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { HostHeat } from './host-heat.js';
import { batteryOf, HealthMonitor, problemsOf } from './monitor.js';
import { PROBLEMS, type HealthSettings } from './rules.js';
import { batteryColumns, problemsColumn } from './list-columns.js';
import { healthOf } from './row.js';

/** What health judges readings with: the health.* settings, the log, the injected wall clock, and the host's judge of hot batteries (host-heat.ts). */
export interface HealthJudging {
  settings: HealthSettings;
  logger?: Logger;
  now?: () => number;
  heat?: Pick<HostHeat, 'hold'>;
}

/** judging: none, as for a feature built for its views alone: no reading is judged. */
export function healthFeature(registry: Pick<DeviceRegistry, 'facet' | 'byUdid'>, judging?: HealthJudging): DeviceFeature {
  const signals = (s: RowSubject) => batteryOf(registry, s.device?.key)?.signals;
  const battery = { after: 'batteryHealth' };
  const afterCharging = { after: 'device_agent_device_battery_charging' };
  const monitor = judging && new HealthMonitor(judging.settings, judging.logger ?? silentLogger(), judging.now, judging.heat);
  return {
    name: 'health',
    ...(monitor && { judge: (devices, sources) => monitor.apply(devices, registry, sources.shell) }),
    fields: () => [
      { key: 'batteryFullSeconds', place: battery, value: (s) => signals(s)?.heldFullSeconds },
      { key: 'chargerMillivolts', place: battery, value: (s) => signals(s)?.chargerMillivolts },
      { key: 'batteryCycles', place: battery, value: (s) => signals(s)?.cycleCount },
      { key: 'batteryHealthPercent', place: battery, value: (s) => signals(s)?.healthPercent },
      { key: 'problems', place: { after: 'up' }, value: (s) => [...problemsOf(registry, s.device?.key)] },
    ],
    columns: () => [...batteryColumns, problemsColumn],
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
        name: 'device_agent_device_battery_cycles',
        help: 'Full charge cycles of the battery, where the phone reports them.',
        place: afterCharging,
        samples: (r) => udidSample(r, healthOf(r).batteryCycles),
      },
      {
        name: 'device_agent_device_battery_health_percent',
        help: 'State of health of the battery in % of its design capacity, where the phone reports it.',
        place: afterCharging,
        samples: (r) => udidSample(r, healthOf(r).batteryHealthPercent),
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

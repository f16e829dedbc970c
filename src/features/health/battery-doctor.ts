// The doctor's battery lines: what one battery reading of a ready device
// (`dumpsys battery`, read by the platform's ServiceDoctor.battery) shows
// against the health rules. Pure: the reading in, checklist items out.
// Held full is not judged here: it takes readings over time, which only the
// running daemon has (its device_agent_device_battery_full_seconds).

import { chargingOf } from '../../cloud/device-facts.js';
import { evaluate, type HealthSettings } from './rules.js';
import type { BatteryFacts } from '../../platforms/doctor.js';
import type { CheckItem } from '../../platforms/doctor.js';

export function batteryItems(serial: string, battery: BatteryFacts, settings: HealthSettings): CheckItem[] {
  const findings = evaluate(
    {
      temperatureCelsius: battery.temperatureCelsius,
      batteryPercent: battery.batteryPercent,
      charging: chargingOf(battery.status),
      batteryHealth: battery.batteryHealth,
      chargerMillivolts: battery.chargerMillivolts,
      consecutiveShellFailures: 0,
    },
    new Set(),
    settings,
  );
  return findings.map((f) => ({ status: 'warn', finding: `device ${serial}: ${f.problem}`, advice: f.message, phone: true }));
}

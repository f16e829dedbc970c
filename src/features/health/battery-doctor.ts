// The doctor's battery lines: one reading of a ready device against the health rules. Pure. Held full is not judged:
// it takes readings over time, which only the daemon has.

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

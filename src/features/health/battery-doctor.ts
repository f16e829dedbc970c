// The doctor's battery lines: one reading of a ready device against the health rules, or unread. Pure. Held full is not judged:
// it takes readings over time, which only the daemon has.

import { chargingOf } from '../../cloud/device-facts.js';
import { evaluate, type HealthSettings } from './rules.js';
import type { BatteryFacts } from '../../platforms/doctor.js';
import type { CheckItem } from '../../platforms/doctor.js';

export function batteryItems(serial: string, battery: BatteryFacts, settings: HealthSettings): CheckItem[] {
  // The facts carry the rules' own names (cycles and capacity are wear's, which the rules do not read).
  const findings = evaluate({ ...battery, charging: chargingOf(battery.status), consecutiveShellFailures: 0 }, new Set(), settings);
  const id = 'phone.battery';
  if (findings.length === 0) {
    const figures = [
      battery.batteryPercent !== undefined && `${battery.batteryPercent} %`,
      battery.temperatureCelsius !== undefined && `${battery.temperatureCelsius} °C`,
    ];
    const told = figures.filter(Boolean).join(', ');
    if (!told) return [{ id, phone: serial, status: 'unread', finding: 'its battery service printed no figures' }];
    return [{ id, phone: serial, status: 'ok', finding: `device ${serial}: battery ${told}` }];
  }
  const problems = findings.map((f) => f.problem.replace(/_/g, ' ')).join(', ');
  return [{ id, phone: serial, status: 'warn', finding: `device ${serial}: ${problems}`, advice: findings.map((f) => f.message).join('; ') }];
}

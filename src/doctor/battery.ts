// The doctor's battery lines: what one `dumpsys battery` of a ready device
// shows against the health rules. Pure: the output in, checklist items out.
// Held full is not judged here: it takes readings over time, which only the
// running daemon has (its device_agent_device_battery_full_seconds).

import { chargingOf } from '../cloud/device-facts.js';
import { evaluate, type HealthSettings } from '../health/rules.js';
import { onExternalPower, parseBattery } from '../platforms/android/inventory/parsers/battery.js';
import type { CheckItem } from './checklist.js';

export const BATTERY_COMMAND = 'dumpsys battery';

export function batteryItems(serial: string, output: string, settings: HealthSettings): CheckItem[] {
  const reading = parseBattery(output);
  const percent = reading.percentage === undefined ? undefined : Number(reading.percentage);
  const findings = evaluate(
    {
      temperatureCelsius: reading.temperature,
      batteryPercent: percent,
      charging: chargingOf(reading.status),
      batteryHealth: reading.health,
      chargerMillivolts: onExternalPower(reading) === false ? undefined : reading.maxChargingVoltage,
      cycleCount: reading.cycleCount,
      healthPercent: reading.healthPercent,
      consecutiveShellFailures: 0,
    },
    new Set(),
    settings,
  );
  return findings.map((f) => ({ status: 'warn', finding: `device ${serial}: ${f.problem}`, advice: f.message, phone: true }));
}

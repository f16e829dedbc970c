import type { Probe } from './types.js';
import { fixedByHealthd, onExternalPower, parseBattery, type BatteryReading } from '../parsers/battery.js';
import { dropUndefined } from '../../../../util/drop-undefined.js';

export const battery: Probe<BatteryReading> = {
  section: 'battery',
  tier: 'volatile',
  // Only the lines of the keys the parser reads (BATTERY_KEYS) leave the phone: Samsung's dump is 11 KB, its event log
  // mostly. The patterns are short, as the script must fit in 4 KiB; a test checks that each key's line passes.
  command:
    "t dumpsys battery 2>&1 | keep '[AUWD]* powered:*' 'M*voltage:*' 'status:*' 'health:*' 'present:*' 'level:*' 'scale:*' 'voltage:*' 'temperature:*' 'technology:*' 'mSavedBattery[ABU]*'",
  fields: ['battery'],
  note: 'the battery service, the lines of the keys its parser reads only: 0.3-0.5 KB (Samsung prints 1-11 KB whole)',
  props: ['ro.boot.fake_battery'],
  parse: parseBattery,
  fill(info, reading, { props, observedAtMs }) {
    if (!reading) return;
    const { status, voltage, health, technology } = reading;
    const fixed = fixedByHealthd(props['ro.boot.fake_battery']);
    const battery = dropUndefined({
      status,
      temperature: fixed ? undefined : reading.temperature,
      voltage,
      health,
      technology,
      percentage: fixed ? undefined : reading.percentage,
    });
    if (Object.keys(battery).length > 0) info.battery = battery;
    // What the contract has no field for goes beside it, for the agent's own health rules and metrics only.
    const detail = dropUndefined({
      externalPower: onExternalPower(reading),
      chargerMillivolts: reading.maxChargingVoltage,
      cycleCount: reading.cycleCount,
      healthPercent: reading.healthPercent,
    });
    if (Object.keys(detail).length > 0) info.batteryDetail = dropUndefined({ ...detail, observedAtMs });
  },
};

import type { Probe } from './types.js';
import { fixedByHealthd, onExternalPower, parseBattery, type BatteryReading } from '../parsers/battery.js';
import { dropUndefined } from '../../../../util/drop-undefined.js';

export const battery: Probe<BatteryReading> = {
  section: 'battery',
  tier: 'volatile',
  command: 't dumpsys battery',
  fields: ['battery'],
  filled: (d) => Boolean(d.battery?.percentage && d.battery.status && d.battery.health),
  note: 'the battery service: about 1 KB',
  props: ['ro.boot.fake_battery'],
  parse: parseBattery,
  fill(info, reading, { props, observedAtMs }) {
    if (!reading) return;
    const { status, voltage, health, technology } = reading;
    const fixed = fixedByHealthd(props['ro.boot.fake_battery']);
    const temperature = fixed ? undefined : reading.temperature;
    const percentage = fixed ? undefined : reading.percentage;
    const battery = dropUndefined({ status, temperature, voltage, health, technology, percentage });
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

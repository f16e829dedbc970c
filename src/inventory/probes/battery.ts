import type { Probe } from './types.js';
import { parseBattery, type BatteryReading } from '../parsers/battery.js';
import { dropUndefined } from '../../util/drop-undefined.js';

export const battery: Probe<BatteryReading> = {
  section: 'battery',
  tier: 'volatile',
  command: 't dumpsys battery',
  fields: ['battery'],
  filled: (d) => Boolean(d.battery?.percentage && d.battery.status && d.battery.health),
  note: 'the battery service: about 1 KB',
  parse: parseBattery,
  fill(info, reading) {
    if (!reading) return;
    const { status, temperature, voltage, health, technology, percentage } = reading;
    const battery = dropUndefined({ status, temperature, voltage, health, technology, percentage });
    if (Object.keys(battery).length > 0) info.battery = battery;
  },
};

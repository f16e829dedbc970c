import type { Probe } from './types.js';
import { parseSettingText } from '../parsers/settings.js';

export const bluetoothName: Probe<string> = {
  section: 'bluetooth_name',
  tier: 'slow',
  command: 't settings get secure bluetooth_name',
  fields: ['deviceName'],
  note: 'device name where no device_name is set',
  // Read by the device_name probe, which owns the field.
  parse: parseSettingText,
};

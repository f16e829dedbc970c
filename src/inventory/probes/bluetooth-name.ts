import type { Probe } from './types.js';

export const bluetoothName: Probe = {
  section: 'bluetooth_name',
  tier: 'slow',
  command: 't settings get secure bluetooth_name',
  fields: ['deviceName'],
  filled: (d) => Boolean(d.deviceName),
  note: 'device name where no device_name is set',
};

import type { Probe } from './types.js';
import { parseSettingText } from '../parsers/settings.js';
import { bluetoothName } from './bluetooth-name.js';

export const deviceName: Probe<string> = {
  section: 'device_name',
  tier: 'slow',
  command: 't settings get global device_name',
  fields: ['deviceName'],
  note: 'user-set device name',
  parse: parseSettingText,
  // The user-set name first, then the Bluetooth name, the vendor's marketing name, the model.
  fill(info, reading, ctx) {
    info.deviceName = reading ?? ctx.read(bluetoothName) ?? ctx.identity.marketingName ?? ctx.identity.modelName;
  },
};

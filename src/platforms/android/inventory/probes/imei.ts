import type { Probe } from './types.js';
import { isImei, parseParcelString } from '../parsers/telephony.js';

export const imei: Probe<string> = {
  section: 'imei',
  tier: 'connection',
  command: 't service call iphonesubinfo 1',
  fields: ['telephony.carriersInfo.imei'],
  note: 'IMEI of the default slot where the shell may read it (Android 9 and older)',
  // Cached per connection like every connection-tier section; the telephony probe fills the field.
  parse: (text) => {
    const value = parseParcelString(text);
    return isImei(value) ? value : undefined;
  },
};

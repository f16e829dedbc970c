import type { Probe } from './types.js';

export const imei: Probe = {
  section: 'imei',
  tier: 'connection',
  command: 't service call iphonesubinfo 1',
  fields: ['telephony.carriersInfo.imei'],
  filled: (d) => Boolean(d.telephony?.carriersInfo?.[0]?.imei),
  note: 'IMEI of the default slot where the shell may read it (Android 9 and older)',
};

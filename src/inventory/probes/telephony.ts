import type { Probe } from './types.js';

// `dumpsys telephony.registry` is 15-30 KB on the recorded phones; the parser
// reads the mDataConnectionState lines only (one per phone), so only those
// cross the cable.
export const telephony: Probe = {
  section: 'telephony',
  tier: 'volatile',
  command: "t dumpsys telephony.registry 2>&1 | keep '*mDataConnectionState=*'",
  fields: ['telephony.mobileDataState'],
  filled: (d) => d.telephony?.mobileDataState !== undefined,
  note: '`dumpsys telephony.registry`, only the mDataConnectionState lines sent back',
};

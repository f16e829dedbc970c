import type { Probe } from './types.js';

export const props: Probe = {
  section: 'props',
  tier: 'connection',
  command: 'getprop',
  fields: ['udid', 'serialNumber', 'platformVersion', 'modelName', 'brandName', 'cpuArchitecture', 'isEmulator', 'deviceName', 'telephony.carriersInfo'],
  note: 'the whole property list, once per connection: identity, ABI, emulator flag, vendor IMEI/MEID props',
};

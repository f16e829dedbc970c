import type { Probe } from './types.js';

export const props: Probe = {
  section: 'props',
  tier: 'connection',
  command: 'getprop',
  fields: ['udid', 'serialNumber', 'platformVersion', 'modelName', 'brandName', 'cpuArchitecture', 'isEmulator', 'deviceName', 'telephony.carriersInfo'],
  filled: (d) => d.isEmulator !== undefined && d.platformVersion !== undefined,
  // One property line is enough to tell (parsing a 50 KB dump twice is not free).
  good: (text) => /^\[[^\]\n]+\]: \[/m.test(text),
  note: 'the whole property list, once per connection: identity, ABI, emulator flag, vendor IMEI/MEID props',
};

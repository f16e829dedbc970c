import { parseGetprop } from '../parsers/getprop.js';
import type { Probe } from './types.js';

export const props: Probe = {
  section: 'props',
  tier: 'connection',
  command: 'getprop',
  fields: ['udid', 'serialNumber', 'platformVersion', 'modelName', 'brandName', 'cpuArchitecture', 'isEmulator', 'deviceName', 'telephony.carriersInfo'],
  filled: (d) => d.isEmulator !== undefined && d.platformVersion !== undefined,
  good: (text) => Object.keys(parseGetprop(text)).length > 0,
  note: 'the whole property list, once per connection: identity, ABI, emulator flag, vendor IMEI/MEID props',
};

import { IDENTITY_PROPS } from '../identity.js';
import { parseGetprop, type Props } from '../parsers/getprop.js';
import type { Probe } from './types.js';

/** `keep`: as parseGetprop's, the only properties wanted (the prober asks for those the probes declare). */
export const props: Probe<Props> & { parse(text: string, keep?: ReadonlySet<string>): Props } = {
  section: 'props',
  tier: 'connection',
  command: 'getprop',
  fields: ['udid', 'serialNumber', 'platformVersion', 'modelName', 'brandName', 'cpuArchitecture', 'isEmulator', 'deviceName', 'telephony.carriersInfo'],
  // One property line is enough to tell (parsing a 50 KB dump twice is not free).
  good: (text) => /^\[[^\]\n]+\]: \[/m.test(text),
  note: 'the whole property list, once per connection: identity, ABI, emulator flag, vendor IMEI/MEID props',
  // The identity (identity.ts) is derived from these, once per assembly.
  props: IDENTITY_PROPS,
  parse: parseGetprop,
  // The assembler derives the identity once (identity.ts; udid and serial
  // come first, every record needs them); this sets the rest of it.
  fill(info, _reading, { identity }) {
    info.platformVersion = identity.platformVersion;
    info.modelName = identity.modelName;
    info.brandName = identity.brandName;
    info.cpuArchitecture = identity.cpuArchitecture;
    info.isEmulator = identity.isEmulator;
  },
};

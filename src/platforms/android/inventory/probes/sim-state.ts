import type { Probe } from './types.js';

export const simState: Probe<string> = {
  section: 'sim_state',
  tier: 'slow',
  command: 'getprop gsm.sim.state',
  fields: ['telephony.carriersInfo'],
  note: 'one SIM state per slot: SIM presence',
  // One line, the same format as the property; the assembler lays it over the
  // property list read once per connection, so the newer reading wins.
  parse: (text) => {
    const value = text.trim();
    return /[\r\n]/.test(value) ? undefined : value;
  },
};

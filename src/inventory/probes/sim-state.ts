import type { Probe } from './types.js';

export const simState: Probe = {
  section: 'sim_state',
  tier: 'slow',
  command: 'getprop gsm.sim.state',
  fields: ['telephony.carriersInfo'],
  note: 'one SIM state per slot: SIM presence',
};

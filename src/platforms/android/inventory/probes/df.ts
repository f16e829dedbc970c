import type { Probe } from './types.js';
import { parseDf, type Capacity } from '../parsers/df.js';

export const df: Probe<Capacity> = {
  section: 'df',
  tier: 'volatile',
  command: 'df /data',
  fields: ['storage'],
  note: 'the data partition only',
  parse: (text) => parseDf(text),
  fill(info, reading) {
    info.storage = reading;
  },
};

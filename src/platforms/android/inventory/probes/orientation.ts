import type { Probe } from './types.js';
import { parseOrientation } from '../parsers/orientation.js';

// `dumpsys input` is 20-65 KB for one integer: only the lines of the wordings parsers/orientation.ts knows cross the cable.
export const orientation: Probe<number> = {
  section: 'orientation',
  tier: 'volatile',
  command: "t dumpsys input 2>&1 | keep '*SurfaceOrientation:*' '*InputDeviceOrientation:*' '*Viewport INTERNAL:*'",
  fields: ['orientation'],
  note: '`dumpsys input`, only the orientation lines sent back',
  parse: parseOrientation,
  fill(info, reading) {
    info.orientation = reading;
  },
};

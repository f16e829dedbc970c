import type { Probe } from './types.js';
import { parseOrientation } from '../parsers/orientation.js';

// `dumpsys input` is 20-65 KB on the recorded phones for one integer. The
// device still runs it (no narrower source is checked from Android 5 to 16),
// but only the lines the parser reads cross the cable: the three wordings
// parsers/orientation.ts knows.
export const orientation: Probe<number> = {
  section: 'orientation',
  tier: 'volatile',
  command: "t dumpsys input 2>&1 | keep '*SurfaceOrientation:*' '*InputDeviceOrientation:*' '*Viewport INTERNAL:*'",
  fields: ['orientation'],
  filled: (d) => d.orientation !== undefined,
  note: '`dumpsys input`, only the orientation lines sent back',
  parse: parseOrientation,
  fill(info, reading) {
    info.orientation = reading;
  },
};

import type { Probe } from './types.js';
import { parseWmSize, type WmSize } from '../parsers/wm.js';
import { wmDensity } from './wm-density.js';

export const wmSize: Probe<WmSize> = {
  section: 'wm_size',
  tier: 'volatile',
  command: 't wm size',
  fields: ['resolution.width', 'resolution.height', 'resolution.logical'],
  note: 'physical size and the current override',
  parse: parseWmSize,
  // width/height: the physical panel; logical: the `wm size` override when one is set; projection: the density in dpi
  // that apps render with (override when set, else physical).
  fill(info, size, ctx) {
    if (!size?.physical) return;
    const density = ctx.read(wmDensity);
    info.resolution = { width: size.physical.width, height: size.physical.height };
    const dpi = density?.override ?? density?.physical;
    if (dpi !== undefined) info.resolution.projection = dpi;
    if (size.override) info.resolution.logical = { ...size.override };
  },
};

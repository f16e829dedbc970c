// The probes of the phone's display: the panel and its override, the density, the rotation.
import type { Probe } from './types.js';
import { parseWmDensity, parseWmSize, type WmDensity, type WmSize } from '../parsers/wm.js';
import { parseOrientation } from '../parsers/orientation.js';

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

export const wmDensity: Probe<WmDensity> = {
  section: 'wm_density',
  tier: 'slow',
  command: 't wm density',
  fields: ['resolution.projection'],
  note: 'physical density and its override',
  // Read by the wm_size probe, which owns resolution.
  parse: parseWmDensity,
};

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

// Parses `wm size` and `wm density`: a "Physical" line and, when someone set an override (`wm size 720x1280`), an
// "Override" line. Some vendor builds print noise first ("open: Permission denied" on Redmi devices).
import { dropUndefined } from '../../../../util/drop-undefined.js';

export interface WmSize {
  physical?: { width: number; height: number };
  override?: { width: number; height: number };
}

export interface WmDensity {
  physical?: number;
  override?: number;
}

function size(text: string, kind: string) {
  const match = new RegExp(`^\\s*${kind} size:\\s*(\\d{1,6})x(\\d{1,6})\\s*$`, 'm').exec(text.replace(/\r/g, ''));
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function density(text: string, kind: string) {
  const match = new RegExp(`^\\s*${kind} density:\\s*(\\d{1,5})\\s*$`, 'm').exec(text.replace(/\r/g, ''));
  const value = match ? Number(match[1]) : 0;
  return value > 0 ? value : undefined;
}

export function parseWmSize(text: string) {
  return dropUndefined({ physical: size(text, 'Physical'), override: size(text, 'Override') });
}

export function parseWmDensity(text: string) {
  return dropUndefined({ physical: density(text, 'Physical'), override: density(text, 'Override') });
}

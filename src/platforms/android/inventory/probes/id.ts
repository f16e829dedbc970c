import type { Probe } from './types.js';
import { parseIdUid } from '../parsers/root.js';
import { su } from './su.js';

export const id: Probe<number> = {
  section: 'id',
  tier: 'slow',
  command: 'id',
  fields: ['isRooted'],
  note: 'adbd running as root (uid 0)',
  parse: parseIdUid,
  // Rooted: an su binary is present, or adbd runs as uid 0. ro.secure=0 alone is no evidence: some vendor builds set it
  // and still give adb a uid 2000 shell.
  fill(info, uid, ctx) {
    info.isRooted = rootVerdict(ctx.read(su), uid);
  },
};

/** true on evidence of root, false when both probes answered without it, else unknown. */
export function rootVerdict(suPresent: boolean | undefined, uid: number | undefined) {
  if (suPresent === true || uid === 0) return true;
  if (suPresent === false && uid !== undefined) return false;
  return undefined;
}

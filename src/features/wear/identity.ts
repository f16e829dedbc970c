// Whose history a phone's wear reading may join (docs/design/trust.md): the
// history is kept by the udid the phone gives, which it chooses, so while
// another listed device gives the same udid (a clone, a vendor's fixed
// serial such as 0123456789ABCDEF) neither is linked to the history: it is
// neither read nor written for them, and each is judged on its own look
// alone. The rule is the host actions' (conflictsOf, src/devices/claims.ts):
// one phone over USB and its TCP twin are one phone. Pure.
import { conflictsOf, conflictText, type Claim } from '../../devices/claims.js';

/** Why no history is read or written for a phone, and none is forecast from: the words of `list`, the log and `doctor`. */
export function noHistoryWhy(serial: string, claims: readonly Claim[]) {
  const conflict = conflictsOf(claims).get(serial);
  if (!conflict) return undefined;
  return `identity in conflict: ${conflictText(conflict)}; its wear history is neither read nor written while they do, so that one phone cannot take another's, and it is judged on its last reading alone`;
}

/** What to do about it. */
export const NO_HISTORY_ADVICE =
  'tell the phones apart: give each its own serial where the lab can (a clone or a board with a fixed one), or keep one of them on this host; the forecast comes back when one phone gives the udid';

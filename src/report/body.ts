// The body of one PUT /devices: the node id, the Machine record and the devices, present ones first, then the UNPLUGGED
// records owed. The one place a body is composed, so the one place it is made clean: the present devices before the
// ledger keys them by udid, then what the ledger adds, the node id and the host's record.
import type { DeviceInfo, Machine, ReportBody } from '../cloud/types.js';
import { cleanStrings } from './clean-strings.js';
import type { UnpluggedLedger } from './unplugged.js';

export interface BodyParts {
  nodeId: string;
  machine: Machine;
  /** The report's devices, present now. */
  devices: readonly DeviceInfo[];
  /** Whether the listing is complete, and whether nothing is gone (a source did not answer): as UnpluggedLedger.compose takes them. */
  complete: boolean;
  nothingGone: boolean;
}

export function composeBody(parts: BodyParts, ledger: Pick<UnpluggedLedger, 'compose'>): ReportBody {
  const present = cleanStrings([...parts.devices]);
  const all = ledger.compose(present, parts.complete, parts.nothingGone);
  const owed = cleanStrings(all.slice(present.length));
  return { ...cleanStrings({ nodeId: parts.nodeId, machine: parts.machine }), devices: [...present, ...owed] };
}

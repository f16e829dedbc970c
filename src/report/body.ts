// The body of one PUT /devices: the node id, the Machine record and the devices, present ones first, then the UNPLUGGED
// records owed. The one place a body is composed, so the one place it is made clean: the present devices before the
// ledger keys them by udid, then what the ledger adds, the node id and the host's record.
import type { DeviceInfo, ReportBody } from '../cloud/types.js';
import { cleanStrings } from './clean-strings.js';
import type { UnpluggedLedger } from './unplugged.js';

/** `how`: whether the listing is complete, whether nothing is gone (a source did not answer), and the devices held that no source listed, as UnpluggedLedger.compose takes them. */
export function composeBody(
  head: Omit<ReportBody, 'devices'>,
  devices: readonly DeviceInfo[],
  ledger: Pick<UnpluggedLedger, 'compose'>,
  ...how: [complete: boolean, nothingGone: boolean, unseen: ReadonlySet<string>]
): ReportBody {
  const present = cleanStrings([...devices]);
  const owed = cleanStrings(ledger.compose(present, ...how).slice(present.length));
  return { ...cleanStrings(head), devices: [...present, ...owed] };
}

// The one composer of the features' verdicts (src/devices/timeline.ts) into what the cloud is told of a phone, by the
// verdicts' declared order (verdicts.ts), after the features' annotate passes (feature.ts), at the instant the report
// folds them: any verdict out of service makes it UNAVAILABLE, any that says automation cannot run turns Appium off, and
// their words lead its message (why it is out comes first), a listed phone's or a carried one's. A verdict stands until its owner says another,
// so the report says the same between two readings as right after one.
import { withWordsFirst } from '../cloud/device-message.js';
import { appiumOff, STATUS_UNAVAILABLE, type DeviceInfo } from '../cloud/types.js';
import type { Verdict } from './timeline.js';

/** What the verdicts standing on a phone do to what the cloud is told of it: its status, its Appium flag, and their words before its message, in their order. */
export function withVerdicts(info: DeviceInfo, verdicts: readonly Verdict[]) {
  let out = info;
  if (verdicts.some((v) => v.unavailable)) out = { ...out, status: STATUS_UNAVAILABLE };
  if (verdicts.some((v) => v.appiumOff)) out = { ...out, support: appiumOff(out.support) };
  return withWordsFirst(
    out,
    verdicts.flatMap((v) => v.words ?? []),
  );
}

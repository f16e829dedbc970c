// The one composer of the features' verdicts (src/devices/timeline.ts) into what the cloud is told of a phone: any
// verdict out of service makes it UNAVAILABLE, any that says automation cannot run turns Appium off, and their words
// join its message in the verdicts' declared order (verdicts.ts), after the features' annotate passes (feature.ts). A verdict stands until its owner says
// another, so the report says the same between two readings as right after one.
import { withNotes } from '../cloud/device-message.js';
import { appiumOff, STATUS_UNAVAILABLE, type DeviceInfo } from '../cloud/types.js';
import type { Verdict } from './timeline.js';

export function withVerdicts(info: DeviceInfo, verdicts: readonly Verdict[]): DeviceInfo {
  if (verdicts.length === 0) return info;
  let out = info;
  if (verdicts.some((v) => v.unavailable)) out = { ...out, status: STATUS_UNAVAILABLE };
  if (verdicts.some((v) => v.appiumOff)) out = { ...out, support: appiumOff(out.support) };
  return withNotes(
    out,
    verdicts.map((v) => v.words),
  );
}

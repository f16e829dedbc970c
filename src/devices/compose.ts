// The one composer of the features' verdicts (src/devices/timeline.ts) into what the cloud is told of a phone, by the
// verdicts' declared order (verdicts.ts): their words join its message after the features' notes, where its source
// speaks for it (report/notes.ts); after the features' annotate passes (feature.ts), any verdict out of service makes it
// UNAVAILABLE and any that says automation cannot run turns Appium off. A verdict stands until its owner says another,
// so the report says the same between two readings as right after one.
import { appiumOff, STATUS_UNAVAILABLE, type DeviceInfo } from '../cloud/types.js';
import type { Verdict } from './timeline.js';

/** What the verdicts standing on a phone do to what the cloud is told of it: its status and its Appium flag. */
export function withVerdicts(info: DeviceInfo, verdicts: readonly Verdict[]) {
  let out = info;
  if (verdicts.some((v) => v.unavailable)) out = { ...out, status: STATUS_UNAVAILABLE };
  if (verdicts.some((v) => v.appiumOff)) out = { ...out, support: appiumOff(out.support) };
  return out;
}

/** What the verdicts standing on a phone say in its message, in their order. */
export function wordsOf(verdicts: readonly Verdict[]) {
  return verdicts.flatMap((v) => v.words ?? []);
}

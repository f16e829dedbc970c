// The cloud's `support` flags a readiness check decides, per phone. The
// contract (docs/reference/cloud-api-v1.md) gives one of them a meaning a
// check can answer: `appiumDisabled`, which GET /devices filters on ("filter
// by Appium disabled"). Appium drives an Android phone through adb, installs
// its server over it and injects input: a phone whose USB debugging is off
// (off adb altogether), or a Xiaomi refusing injected input or installs over
// USB, cannot run it; nor can an iPhone that does not trust the host (no
// pairing, no session) or whose Developer Mode is off (from iOS 16, the
// XCUITest driver's WebDriverAgent will not install or run), or, from iOS
// 17, whose developer disk image is not mounted (its developer services are
// not there to run it). The other four flags name cloud features
// (traffic and payload capture, unlocking by passcode, setting the time zone)
// whose meaning the contract does not give, so no check decides them: the
// message names those checks' failures, and the flags stay the host's.
// Pure.
import type { Support } from '../../cloud/types.js';
import type { Verdict } from './verdict.js';

/** The checks whose failure disables Appium on the phone. */
const APPIUM_CHECKS: readonly string[] = ['usbDebugging', 'xiaomiInput', 'xiaomiInstall', 'paired', 'developerMode', 'developerImage'];

/**
 * The phone's flags: the host's (`support.*`, which a lab sets to turn a
 * cloud feature off on every phone and no check turns back on), with
 * `appiumDisabled` set when its verdict fails a check Appium needs.
 */
export function supportOf(support: Support | undefined, verdict: Verdict | undefined): Support | undefined {
  if (!verdict || !verdict.failed.some((f) => APPIUM_CHECKS.includes(f.check.id))) return support;
  // A source that gives no flags of its own (lockdown's inventory) gets this one alone: the report's decorate ORs the host's in.
  return { ...(support ?? NO_FLAGS), appiumDisabled: true };
}

const NO_FLAGS: Support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};

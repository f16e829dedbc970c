// The cloud's `support` flags a readiness check decides. Only `appiumDisabled` has a meaning a check can answer (GET
// /devices filters on it): Appium drives an Android phone through adb, so a phone with USB debugging off, or a Xiaomi
// refusing injected input or USB installs, cannot run it; nor an iPhone that does not trust the host, has Developer
// Mode off (iOS 16+) or, from iOS 17, no developer disk image mounted. The other flags name cloud features the
// contract does not define: they stay the host's. Pure.
import type { Verdict } from './verdict.js';

/** The checks whose failure disables Appium on the phone. */
const APPIUM_CHECKS: readonly string[] = ['usbDebugging', 'xiaomiInput', 'xiaomiInstall', 'paired', 'developerMode', 'developerImage'];

/** Whether the verdict fails a check Appium needs. */
export function failsAppium(verdict: Verdict | undefined) {
  return verdict !== undefined && verdict.failed.some((f) => APPIUM_CHECKS.includes(f.check.id));
}

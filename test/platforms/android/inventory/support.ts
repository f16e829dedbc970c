import type { Probe } from '../../../../src/platforms/android/inventory/probes/types.js';
import type { Support } from '../../../../src/cloud/types.js';

/** The support flags of a device on which nothing is disabled. */
export const NOTHING_DISABLED: Support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};

/** The command a device recording is keyed by: without the `t` wrapper, filter and redirection; none for ping's. */
export function recordedCommand(probe: Probe<unknown>): string | undefined {
  if (typeof probe.command !== 'string') return undefined;
  return probe.command
    .replace(/^t /, '')
    .replace(/ 2>&1 \| keep .*$/, '')
    .trim();
}

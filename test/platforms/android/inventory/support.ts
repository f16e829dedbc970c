import type { Support } from '../../../../src/cloud/types.js';

/** The support flags of a device on which nothing is disabled. */
export const NOTHING_DISABLED: Support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};

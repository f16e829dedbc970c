import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { decorate } from '../../src/report/decorate.js';

const support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};
const settings = { hiddenDevices: ['HIDDEN'], addedToCloud: true, support };

describe('decorate: the one writer of isHidden', () => {
  it('hides the udids of settings.hiddenDevices and no other, in the key order the cloud has always received', () => {
    // As a source leaves it: addedToCloud and support, no isHidden.
    const phone = (udid: string): DeviceInfo =>
      ({ udid, serialNumber: udid, state: 'device', addedToCloud: true, support, battery: undefined }) as unknown as DeviceInfo;
    const hidden = decorate(phone('HIDDEN'), settings);
    const shown = decorate(phone('SHOWN'), settings);
    expect(hidden.isHidden).toBe(true);
    expect(shown.isHidden).toBe(false);
    expect(Object.keys(hidden)).toEqual(['udid', 'serialNumber', 'state', 'addedToCloud', 'isHidden', 'support', 'battery']);
  });

  it('decides again over a stored record that carried an older isHidden, and appends it where the source gave no addedToCloud', () => {
    const stored = { udid: 'SHOWN', isHidden: true } as unknown as DeviceInfo;
    const out = decorate(stored, settings);
    expect(out.isHidden).toBe(false);
    expect(Object.keys(out)).toEqual(['udid', 'addedToCloud', 'isHidden', 'support']);
  });
});

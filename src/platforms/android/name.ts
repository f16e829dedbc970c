import type { PlatformName } from '../source.js';
import { offAdbByInterfaces } from './usb-interfaces.js';

/** Android's names: what its inventories say to the cloud, and what `list` and /metrics show. */
export const ANDROID_NAME = {
  platformName: 'ANDROID',
  shown: 'Android',
  phones: 'Android phones',
  offList: {
    source: 'adb',
    // Not a revoked host key: adb lists such a phone, as unauthorized (its AUTH answer, AOSP's d5fcafaf).
    causes: 'USB debugging turned off (an OS update does it), or charge-only mode',
    byInterfaces: offAdbByInterfaces,
  },
} as const satisfies PlatformName;

import type { PlatformName } from '../source.js';
import { offAdbByInterfaces } from './usb-interfaces.js';

/** Android's names: what its inventories say to the cloud, and what `list` and /metrics show. */
export const ANDROID_NAME = {
  platformName: 'ANDROID',
  shown: 'Android',
  versionLabel: 'android',
  phones: 'Android phones',
  offList: {
    source: 'adb',
    causes: 'USB debugging turned off (an OS update does it), charge-only mode, or the host key revoked',
    byInterfaces: offAdbByInterfaces,
  },
} as const satisfies PlatformName;

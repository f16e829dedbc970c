import type { PlatformName } from '../source.js';
import { IOS_PLATFORM } from './inventory.js';

/** iOS's names: what its inventories say to the cloud, and what `list` and /metrics show. */
export const IOS_NAME: PlatformName = {
  platformName: IOS_PLATFORM,
  shown: 'iOS',
  phones: 'iPhones',
  // usbmuxd lists every iPhone it takes, trusted or not: one the kernel enumerated and usbmuxd does not list is one it
  // did not take (public threads: libimobiledevice#1035, #1491, imobiledevice-net#125).
  offList: {
    source: 'usbmuxd',
    causes:
      'usbmuxd did not take it (its log says why: a device it could not open or configure, or a stall on a USB 3 port): restart usbmuxd or replug the iPhone, into a USB 2 port if it happens again',
  },
};

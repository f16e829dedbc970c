import { AdbUnreachableError } from '../platforms/android/adb/errors.js';
import type { CollectRequest } from '../agent/collector.js';
import { checkHealth, type Parts } from '../agent/parts.js';
import type { DeviceInfo } from '../cloud/types.js';
import { collectIphonesOnce } from '../platforms/ios/setup.js';
import type { Setup } from './setup.js';

export interface OneShotInventory {
  /** The devices present now, health rules applied. */
  collect(request?: CollectRequest): Promise<DeviceInfo[]>;
  /** Whether adb answered its device list (then absence means unplugged). */
  adbListed(): boolean;
}

/**
 * The inventory of a one-shot command (once, list): adb's devices and the
 * iPhones usbmuxd lists, read in full. It has nothing else to do, so it
 * waits for every probe, each still bounded by its own deadline.
 */
export function oneShotInventory(parts: Parts, setup: Setup, env: NodeJS.ProcessEnv): OneShotInventory {
  const { settings, logger } = setup;
  let listed = false;
  const android = async (request: CollectRequest): Promise<DeviceInfo[]> => {
    try {
      const list = await parts.adb.listDevices();
      listed = true;
      return await parts.collector.collect(new Map(list.map((d) => [d.serial, d.state])), request);
    } catch (err) {
      if (!(err instanceof AdbUnreachableError)) throw err;
      logger.warn({ adb: parts.adb.label }, `${err.message}. No Android device is listed.`);
      return [];
    }
  };
  return {
    async collect(request = { refresh: 'all', waitForAll: true }) {
      const [a, i] = await Promise.all([android(request), collectIphonesOnce(settings, env, logger)]);
      return checkHealth(parts, [...a, ...i]);
    },
    adbListed: () => listed,
  };
}

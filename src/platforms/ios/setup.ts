// The iOS side built from the settings: nothing when turned off, else a
// watcher and a collector on the usbmuxd address (USBMUXD_SOCKET_ADDRESS as
// libusbmuxd reads it, else the usbmuxdSocketAddress setting, else
// /var/run/usbmuxd). The agent and `once` use it the same way.
import type { DeviceInfo } from '../../cloud/types.js';
import type { Settings } from '../../config/schema.js';
import type { Logger } from '../../log/logger.js';
import { parseUsbmuxdAddress } from './address.js';
import { IosCollector } from './collector.js';
import { IosWatcher } from './watcher.js';

export interface IosParts {
  watcher: IosWatcher;
  collector: IosCollector;
}

type IosSettings = Pick<Settings, 'ios' | 'usbmuxdSocketAddress' | 'iosTimeoutSeconds' | 'reconcileSeconds' | 'probeConcurrency' | 'slowFactsRefreshSeconds'>;

export function buildIosParts(settings: IosSettings, env: NodeJS.ProcessEnv, logger: Logger): IosParts | undefined {
  if (settings.ios === false) return undefined;
  let address;
  try {
    address = parseUsbmuxdAddress(env.USBMUXD_SOCKET_ADDRESS || settings.usbmuxdSocketAddress);
  } catch (err) {
    logger.warn(`${(err as Error).message}; iPhones are not reported until it is fixed`);
    return undefined;
  }
  const stepTimeoutMs = (settings.iosTimeoutSeconds ?? 5) * 1000;
  return {
    watcher: new IosWatcher({ address, reconcileMs: settings.reconcileSeconds * 1000, stepTimeoutMs, logger }),
    collector: new IosCollector({ stepTimeoutMs, concurrency: settings.probeConcurrency, logger, slowFactsRefreshMs: (settings.slowFactsRefreshSeconds ?? 900) * 1000 }),
  };
}

/** One inventory of the iPhones present now (for `once`): start, collect, stop. */
export async function collectIphonesOnce(settings: IosSettings, env: NodeJS.ProcessEnv, logger: Logger): Promise<DeviceInfo[]> {
  const ios = buildIosParts(settings, env, logger);
  if (!ios) return [];
  await ios.watcher.start();
  try {
    return await ios.collector.collect(ios.watcher);
  } finally {
    ios.watcher.stop();
  }
}

// The iOS source built from the settings: nothing when turned off, else one on the usbmuxd address
// (USBMUXD_SOCKET_ADDRESS as libusbmuxd reads it, else the usbmuxdSocketAddress setting, else /var/run/usbmuxd).
import type { Settings } from '../../config/schema.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { Logger } from '../../log/logger.js';
import type { Clock, Timers } from '../../util/clock.js';
import { parseUsbmuxdAddress } from '../../config/usbmuxd-address.js';
import { IosSource } from './source.js';

export type IosSettings = Pick<
  Settings,
  'ios' | 'usbmuxdSocketAddress' | 'iosTimeoutSeconds' | 'reconcileSeconds' | 'probeConcurrency' | 'slowFactsRefreshSeconds'
>;

export function iosSource(settings: IosSettings, env: NodeJS.ProcessEnv, logger: Logger, registry: DeviceRegistry, clock: Clock & Timers) {
  if (settings.ios === false) return undefined;
  let address;
  try {
    address = parseUsbmuxdAddress(env.USBMUXD_SOCKET_ADDRESS || settings.usbmuxdSocketAddress);
  } catch (err) {
    logger.warn(`${(err as Error).message}; iPhones are not reported until it is fixed`);
    return undefined;
  }
  return new IosSource({
    address,
    registry,
    logger,
    clock,
    stepTimeoutMs: (settings.iosTimeoutSeconds ?? 5) * 1000,
    concurrency: settings.probeConcurrency,
    reconcileMs: settings.reconcileSeconds * 1000,
    slowFactsRefreshMs: (settings.slowFactsRefreshSeconds ?? 900) * 1000,
    // Unset is "iPhones if there are any": only ios: true asks to hear that there are none.
    quietWhenAbsent: settings.ios !== true,
  });
}

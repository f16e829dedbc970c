import type { DeviceInfo } from '../cloud/types.js';
import type { Settings } from '../config/schema.js';

/** The settings that say how the cloud should treat the host's devices, whatever their platform. */
export type DecorateSettings = Pick<Settings, 'hiddenDevices' | 'addedToCloud' | 'support'>;

/**
 * Applies the operator's settings to a device record of any platform and
 * state: a hidden phone stays hidden while it is offline or unpaired too.
 * Returns a new record; the input is not changed.
 */
export function decorate(info: DeviceInfo, settings: DecorateSettings): DeviceInfo {
  return {
    ...info,
    addedToCloud: settings.addedToCloud,
    isHidden: settings.hiddenDevices.includes(info.udid),
    support: { ...settings.support },
  };
}

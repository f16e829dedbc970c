import type { DeviceInfo, Support } from '../cloud/types.js';
import type { Settings } from '../config/schema.js';

/** The settings that say how the cloud should treat the host's devices, whatever their platform. */
export type DecorateSettings = Pick<Settings, 'hiddenDevices' | 'addedToCloud' | 'support'>;

/**
 * Applies the operator's settings to a device record of any platform and state (a hidden phone stays hidden offline).
 * The one writer of `isHidden` (test/docs/report-pipeline.rules.ts), placed where the cloud always got it: after
 * `addedToCloud`, else at the end. Returns a new record.
 */
export function decorate(info: DeviceInfo, settings: DecorateSettings) {
  const isHidden = settings.hiddenDevices.includes(info.udid);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    if (key === 'isHidden') continue;
    out[key] = value;
    if (key === 'addedToCloud') out.isHidden = isHidden;
  }
  return {
    ...(out as unknown as DeviceInfo),
    addedToCloud: settings.addedToCloud,
    isHidden,
    support: supportWith(settings.support, info.support),
  };
}

/** The host's flags (`support.*`), each also set where a feature set it for this phone: a lab's host flag stays on every phone. */
function supportWith(host: Support, phone: Support | undefined) {
  const out = { ...host };
  for (const key of Object.keys(out) as Array<keyof Support>) out[key] = out[key] || phone?.[key] === true;
  return out;
}

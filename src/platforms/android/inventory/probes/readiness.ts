import { parseReadiness, type ReadinessReading } from '../parsers/readiness.js';
import type { Probe } from './types.js';

/** The settings a lab's readiness baseline may judge, by namespace: only these lines are sent (a whole list is 10-20 KB). */
export const READINESS_SETTINGS = {
  global: [
    'adb_enabled',
    'development_settings_enabled',
    'stay_on_while_plugged_in',
    'window_animation_scale',
    'transition_animation_scale',
    'animator_duration_scale',
    'verifier_verify_adb_installs',
    'package_verifier_enable',
    'auto_time',
    'auto_time_zone',
    'airplane_mode_on',
    'wifi_on',
    'low_power',
    'ota_disable_automatic_update',
    // Not a readiness check: how long the phone keeps this host's adb authorization (src/platforms/android/facts.ts).
    'adb_allowed_connection_time',
  ],
  system: ['accelerometer_rotation'],
} as const;

/**
 * Xiaomi's developer toggles "USB debugging (Security settings)" and "Install via USB", which MIUI and HyperOS keep as
 * properties, and the versions that say the phone runs one of them (a LineageOS build on a Xiaomi sets neither).
 */
export const READINESS_PROPS = ['persist.security.adbinput', 'persist.security.adbinstall', 'ro.miui.ui.version.code', 'ro.mi.os.version.code'] as const;

// One framework command per section, so a slow phone gathers them one at a time. They feed no DeviceInfo field. No
// `good`: a phone whose list always fails would be asked for it forever; a failed list reads as unread. On the slow
// tier: these settings change when someone acts on the phone or an update lands.
const NOTE = 'readiness for automation (src/features/readiness/): feeds no field';

/**
 * One `settings list` cut on the phone to the keys asked for, between its
 * namespace line and its exit status, then the count of rows it printed
 * (`rows:NAMESPACE=N`, the script's `tally`): a list that printed rows and
 * exited 0 was read whole, so a key absent from it is no row of the phone's.
 */
function settingsProbe(namespace: keyof typeof READINESS_SETTINGS): Probe<ReadinessReading> {
  const keys = READINESS_SETTINGS[namespace].map((k) => `'${k}=*'`).join(' ');
  return {
    section: `readiness_${namespace}`,
    tier: 'slow',
    command: `{ echo namespace:${namespace}; t settings list ${namespace}; echo "status:${namespace}=$?"; } 2>&1 | tally ${namespace} 'namespace:*' 'status:*' ${keys}`,
    fields: [],
    note: NOTE,
    parse: parseReadiness,
  };
}

export const readinessGlobal = settingsProbe('global');
export const readinessSystem = settingsProbe('system');

/** The keyguard's `secure=` (a credential set) and Xiaomi's toggles. */
export const readinessKeyguard: Probe<ReadinessReading> = {
  section: 'readiness_keyguard',
  tier: 'slow',
  // One loop, not an echo each: the whole script stays under old devices' 4 KiB shell request.
  command: `t dumpsys window policy 2>&1 | keep '*secure=*'; for p in ${READINESS_PROPS.join(' ')}; do echo "prop:$p=$(getprop $p)"; done`,
  fields: [],
  note: NOTE,
  parse: parseReadiness,
};

/** The readiness sections, whose texts read together as one reading. */
export const READINESS_PROBES = [readinessGlobal, readinessSystem, readinessKeyguard] as const;

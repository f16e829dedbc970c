import { parseReadiness, type ReadinessReading } from '../parsers/readiness.js';
import type { Probe } from './types.js';

/**
 * The settings a lab's readiness baseline may judge, by namespace: the only
 * lines of `settings list` the device sends (a whole list is 10-20 KB).
 * src/features/readiness/checks.ts names each key it reads from here.
 */
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
  ],
  system: ['accelerometer_rotation'],
} as const;

/** Xiaomi's developer toggles "USB debugging (Security settings)" and "Install via USB", which MIUI keeps as properties. */
export const READINESS_PROPS = ['persist.security.adbinput', 'persist.security.adbinstall'] as const;

const keys = Object.values(READINESS_SETTINGS).flat();
const lists = Object.keys(READINESS_SETTINGS).join(' ');

/**
 * The readiness readings: feeds no DeviceInfo field (the phone's inventory is
 * unchanged); the readiness feature reads the cached section. On the slow
 * tier: these settings change when someone acts on the phone or an update
 * lands, and they cost four commands, never on the periodic cycle.
 */
export const readiness: Probe<ReadinessReading> = {
  section: 'readiness',
  tier: 'slow',
  command:
    `for n in ${lists}; do echo "namespace:$n"; t settings list $n; echo "status:$n=$?"; done 2>&1 | keep 'namespace:*' 'status:*' ${keys.map((k) => `'${k}=*'`).join(' ')}; ` +
    "t dumpsys window policy 2>&1 | keep '*secure=*'; " +
    READINESS_PROPS.map((p) => `echo "prop:${p}=$(getprop ${p})"`).join('; '),
  fields: [],
  // A run whose lists all failed keeps the last good reading.
  good: (text) => /^status:[a-z]+=0$/m.test(text),
  note: 'readiness for automation (src/features/readiness/): feeds no field',
  parse: parseReadiness,
};

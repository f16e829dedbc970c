// What the Android platform offers through the facts capability
// (src/platforms/facts.ts), from the sections its inventory already read on
// the current connection (the tier cache): opens no session.
//
// The authorization window is Settings.Global `adb_allowed_connection_time`
// as the framework reads it: AOSP frameworks/base AdbDebuggingManager's
// AdbKeyStore, `getAllowedConnectionTime()` =
// `Settings.Global.getLong(..., ADB_ALLOWED_CONNECTION_TIME,
// DEFAULT_ADB_ALLOWED_CONNECTION_TIME)`, a week (604800000 ms; builds
// without the constant spell it `UnixCalendar.WEEK_IN_MILLIS`); 0 never
// lapses ("Disable adb authorization timeout" in Developer options), and
// `isKeyAuthorized` lets a key in while `now < lastConnectionTime +
// allowedConnectionTime`. That keystore came with Android 10 (API 29:
// AdbDebuggingManager under com.android.server.adb); before it,
// UsbDebuggingManager (services/usb) appends an allowed key to adb_keys with
// no time, so the authorization of an Android 9 or older phone never lapses.
import type { PlatformFacts } from '../facts.js';
import { parseAdvancedProtection } from './inventory/parsers/advanced-protection.js';
import { parsePageSize } from './inventory/parsers/page-size.js';
import { advancedProtection, pageSize } from './inventory/probes/device.js';
import { ANDROID_READINESS } from './readiness.js';
import { cachedProp, cachedSection } from './inventory/tier-store.js';

/** AOSP's DEFAULT_ADB_ALLOWED_CONNECTION_TIME: 7 days. */
export const DEFAULT_ADB_AUTHORIZATION_MS = 604_800_000;

/** The first API level whose framework lets an adb key lapse (Android 10). */
const FIRST_LAPSING_SDK = 29;

/**
 * The window as the framework's getLong reads the setting, from the global
 * rows `settings list global` printed (cut to the keys asked for): a row
 * `null` or absent is the default, but only from a list that printed other
 * rows (adb_enabled is one on every phone), since a list that failed prints
 * none and says nothing; a value getLong would not take is unknown. `sdk`,
 * the phone's API level: below 29 it never lapses (0), whatever a row says;
 * not read, the window is unknown, as the default depends on it.
 */
export function authorizationWindowOf(global: ReadonlyMap<string, string> | undefined, sdk: number | undefined) {
  if (sdk === undefined) return undefined;
  if (sdk < FIRST_LAPSING_SDK) return 0;
  if (global === undefined) return undefined;
  const value = global.get(WINDOW_SETTING);
  if (value === undefined) return global.size > 0 ? DEFAULT_ADB_AUTHORIZATION_MS : undefined;
  if (value === 'null') return DEFAULT_ADB_AUTHORIZATION_MS;
  if (!/^-?\d{1,18}$/.test(value)) return undefined;
  return Number(value);
}

const WINDOW_SETTING = 'adb_allowed_connection_time';
const SDK_PROP = 'ro.build.version.sdk';

const sdkOf = (v: string | undefined) => (v !== undefined && /^\d{1,3}$/.test(v.trim()) ? Number(v.trim()) : undefined);

export const ANDROID_FACTS: PlatformFacts = {
  pageSize: (registry, key) => {
    const text = cachedSection(registry, key, pageSize.section);
    return text === undefined ? undefined : parsePageSize(text);
  },
  advancedProtection: (registry, key) => {
    const text = cachedSection(registry, key, advancedProtection.section);
    return text === undefined ? undefined : parseAdvancedProtection(text);
  },
  authorizationWindowMs: (registry, key) =>
    authorizationWindowOf(ANDROID_READINESS.reading(registry, key)?.settings.get('global'), sdkOf(cachedProp(registry, key, SDK_PROP))),
};

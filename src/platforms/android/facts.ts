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
// allowedConnectionTime`.
import type { PlatformFacts } from '../facts.js';
import { parseAdvancedProtection } from './inventory/parsers/advanced-protection.js';
import { parsePageSize } from './inventory/parsers/page-size.js';
import { advancedProtection } from './inventory/probes/advanced-protection.js';
import { pageSize } from './inventory/probes/page-size.js';
import { ANDROID_READINESS } from './readiness.js';
import { cachedSection } from './inventory/tier-store.js';

/** AOSP's DEFAULT_ADB_ALLOWED_CONNECTION_TIME: 7 days. */
export const DEFAULT_ADB_AUTHORIZATION_MS = 604_800_000;

/**
 * The window as the framework's getLong reads the setting, from the global
 * rows `settings list global` printed (cut to the keys asked for): a row
 * `null` or absent is the default, but only from a list that printed other
 * rows (adb_enabled is one on every phone), since a list that failed prints
 * none and says nothing; a value getLong would not take is unknown.
 */
export function authorizationWindowOf(global: ReadonlyMap<string, string> | undefined): number | undefined {
  if (global === undefined) return undefined;
  const value = global.get(WINDOW_SETTING);
  if (value === undefined) return global.size > 0 ? DEFAULT_ADB_AUTHORIZATION_MS : undefined;
  if (value === 'null') return DEFAULT_ADB_AUTHORIZATION_MS;
  if (!/^-?\d{1,18}$/.test(value)) return undefined;
  return Number(value);
}

const WINDOW_SETTING = 'adb_allowed_connection_time';

export const ANDROID_FACTS: PlatformFacts = {
  pageSize: (registry, key) => {
    const text = cachedSection(registry, key, pageSize.section);
    return text === undefined ? undefined : parsePageSize(text);
  },
  advancedProtection: (registry, key) => {
    const text = cachedSection(registry, key, advancedProtection.section);
    return text === undefined ? undefined : parseAdvancedProtection(text);
  },
  authorizationWindowMs: (registry, key) => authorizationWindowOf(ANDROID_READINESS.reading(registry, key)?.settings.get('global')),
};

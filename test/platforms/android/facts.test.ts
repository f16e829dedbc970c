// What the Android platform reads of a phone beyond DeviceInfo, from the
// sections its inventory cached (src/platforms/android/facts.ts).
import { describe, expect, it } from 'vitest';
import { authorizationWindowOf, DEFAULT_ADB_AUTHORIZATION_MS } from '../../../src/platforms/android/facts.js';

describe('the adb authorization window', () => {
  it("the setting's value in ms; 0 never lapses; null, or no row in a list that printed others, is AOSP's default week", () => {
    expect(
      authorizationWindowOf(
        new Map([
          ['adb_enabled', '1'],
          ['adb_allowed_connection_time', '172800000'],
        ]),
        34,
      ),
    ).toBe(172_800_000);
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '0']]), 30)).toBe(0);
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', 'null']]), 30)).toBe(DEFAULT_ADB_AUTHORIZATION_MS);
    expect(authorizationWindowOf(new Map([['adb_enabled', '1']]), 30)).toBe(604_800_000);
  });

  it('a list that printed nothing, or none read, or a value getLong would not take: unknown', () => {
    expect(authorizationWindowOf(new Map(), 30)).toBeUndefined();
    expect(authorizationWindowOf(undefined, 30)).toBeUndefined();
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '7 days']]), 30)).toBeUndefined();
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '']]), 30)).toBeUndefined();
  });

  it('Android 9 and older (API below 29) keep an allowed key with no time: never lapses, whatever a row says', () => {
    expect(authorizationWindowOf(new Map([['adb_enabled', '1']]), 28)).toBe(0);
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '86400000']]), 23)).toBe(0);
    expect(authorizationWindowOf(undefined, 28)).toBe(0);
    expect(authorizationWindowOf(new Map([['adb_enabled', '1']]), 29)).toBe(DEFAULT_ADB_AUTHORIZATION_MS);
  });

  it('an API level not read: unknown, since the default depends on it', () => {
    expect(authorizationWindowOf(new Map([['adb_enabled', '1']]), undefined)).toBeUndefined();
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '172800000']]), undefined)).toBeUndefined();
  });
});

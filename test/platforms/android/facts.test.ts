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
      ),
    ).toBe(172_800_000);
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '0']]))).toBe(0);
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', 'null']]))).toBe(DEFAULT_ADB_AUTHORIZATION_MS);
    expect(authorizationWindowOf(new Map([['adb_enabled', '1']]))).toBe(604_800_000);
  });

  it('a list that printed nothing, or none read, or a value getLong would not take: unknown', () => {
    expect(authorizationWindowOf(new Map())).toBeUndefined();
    expect(authorizationWindowOf(undefined)).toBeUndefined();
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '7 days']]))).toBeUndefined();
    expect(authorizationWindowOf(new Map([['adb_allowed_connection_time', '']]))).toBeUndefined();
  });
});

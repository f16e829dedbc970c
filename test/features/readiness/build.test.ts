import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ANDROID_READINESS } from '../../../src/platforms/android/readiness.js';
import { buildLine, buildOf } from '../../../src/features/readiness/build.js';

// Real fingerprints, from the recorded property dumps of the device
// profiles (test/fixtures/devices/NAME/getprop.txt; each profile.json names
// where its dump comes from).
const fingerprint = (device: string): string =>
  /^\[ro\.build\.fingerprint\]: \[(.*)\]$/m.exec(readFileSync(new URL(`../../fixtures/devices/${device}/getprop.txt`, import.meta.url), 'utf8'))![1]!;

describe('the build a fingerprint names', () => {
  it.each([
    ['pixel-8-pro', '16', 'CP1A.260305.018'],
    ['samsung-galaxy-s25-plus', '16', 'BP4A.251205.006'],
    ['xiaomi-poco-f6', '14', 'UKQ1.240624.001'],
    ['huawei-mate9-harmonyos2', '9', 'HUAWEIMHA-AL00'],
    ['meizu-mx5-android5.1', '5.1', 'LMY47I'],
  ])('%s: Android %s, build %s', (device, release, id) => {
    const text = fingerprint(device);
    expect(buildOf(text)).toEqual({ fingerprint: text, release, id });
  });

  it('is none for a blank fingerprint, and the fingerprint alone for one not in the usual form', () => {
    expect(buildOf(undefined)).toBeUndefined();
    expect(buildOf('  ')).toBeUndefined();
    expect(buildOf('generic-build-1')).toEqual({ fingerprint: 'generic-build-1' });
  });

  it('names the old and the new version and build id of an update, with both fingerprints', () => {
    const now = fingerprint('pixel-8-pro');
    // The same phone a release earlier: the recorded fingerprint with an Android 15 build id (edited).
    const before = now.replace(':16/CP1A.260305.018/14887507:', ':15/BP1A.250505.005/13277524:');
    expect(buildLine(buildOf(before)!, buildOf(now)!, ANDROID_READINESS.buildName)).toBe(
      'build changed from Android 15 (BP1A.250505.005) to Android 16 (CP1A.260305.018) (an OTA update or a new image; ' +
        `ro.build.fingerprint was ${before}, is ${now}): an update may turn developer settings back on, which its readiness then names`,
    );
    expect(buildLine(buildOf('odd-1')!, buildOf('odd-2')!, ANDROID_READINESS.buildName)).toMatch(/^build changed from odd-1 to odd-2 /);
  });
});

import { describe, expect, it } from 'vitest';
import { parseWearPackages } from '../../../../../src/platforms/android/inventory/parsers/wear-packages.js';
import { MAX_KEPT_PACKAGES, wearPackages } from '../../../../../src/platforms/android/inventory/probes/wear.js';
import { wearPackagesSection } from '../../../../features/wear/section.js';

// The wear_packages section on the formats of AOSP's runListPackages (the
// parser's header; fixtures/SOURCES.md: no public recording of `-3 -U` was
// found, Google's lab server's own test lines are of this form).

describe('pm list packages -3 -U --user 0', () => {
  it("reads the third-party packages and the largest app id (Google's lab server's lines)", () => {
    const r = parseWearPackages(
      wearPackagesSection('package:com.google.android.inputmethod.latin uid:10122\npackage:com.google.android.storagemanager uid:10071\n'),
    );
    expect(r.apps).toEqual({ maxAppId: 10122, packages: 2 });
    expect(r.thirdParty).toEqual(['com.google.android.inputmethod.latin', 'com.google.android.storagemanager']);
    expect(r.unread).toEqual([]);
  });

  it("Android 14's uids joined over users count as app ids (uid modulo 100000)", () => {
    const r = parseWearPackages(wearPackagesSection('package:org.example.test uid:19987,1019987\npackage:org.example.app uid:10400\n'));
    expect(r.apps).toEqual({ maxAppId: 19987, packages: 2 });
  });

  it('before Android 8: the -U error, then the list without uids: packages read, app ids absent', () => {
    const r = parseWearPackages(wearPackagesSection('Error: Unknown option: -U\npackage:org.example.app\n'));
    expect(r.thirdParty).toEqual(['org.example.app']);
    expect(r.apps).toBeUndefined();
    expect(r.unread).toEqual([{ what: 'app ids', why: 'absent' }]);
  });

  it('no third-party package at all is a reading (an empty list), not a failure', () => {
    expect(parseWearPackages(wearPackagesSection(''))).toEqual({ thirdParty: [], unread: [] });
  });

  it('a listing cut by timeout or failed is unread, never "no packages"', () => {
    expect(parseWearPackages(wearPackagesSection('', 124)).thirdParty).toBeUndefined();
    expect(parseWearPackages(wearPackagesSection('', 124)).unread).toEqual([{ what: 'packages', why: 'refused', detail: 'exit status 124' }]);
    // Android 7's cmd exits 0 on an error: an error and no package line is unread too.
    expect(parseWearPackages(wearPackagesSection("cmd: Can't find service: package")).thirdParty).toBeUndefined();
    // No status line at all: the section was cut.
    expect(parseWearPackages('package:org.example.app uid:10400\n').thirdParty).toBeUndefined();
  });

  it("a name that is not a package name is not read (the line is the device's words)", () => {
    const r = parseWearPackages(wearPackagesSection('package:org.example.app uid:10400\npackage:bad name uid:19999\n'));
    expect(r.apps).toEqual({ maxAppId: 10400, packages: 1 });
  });
});

describe('what the cache keeps of a listing (wearPackages.shrink)', () => {
  it('a phone with thousands of leftovers: at most MAX_KEPT_PACKAGES lines, the largest app id among them, the status kept', () => {
    const listing = Array.from({ length: 5000 }, (_, i) => `package:org.example.p${i} uid:${10_000 + i}`).join('\n') + '\n';
    const kept = wearPackages.shrink!(wearPackagesSection(listing));
    expect(kept.split('\n').filter((l) => l.startsWith('package:'))).toHaveLength(MAX_KEPT_PACKAGES);
    expect(parseWearPackages(kept).apps).toEqual({ maxAppId: 14_999, packages: MAX_KEPT_PACKAGES });
    const small = wearPackagesSection('package:org.example.app uid:10400\n');
    expect(parseWearPackages(wearPackages.shrink!(small))).toEqual(parseWearPackages(small));
  });
});

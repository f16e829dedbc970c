// Installed browsers read from recorded `pm list packages` outputs (sources in fixtures/SOURCES.md).
import { describe, expect, it } from 'vitest';
import { installedBrowsers, parsePackages } from '../../../../../src/platforms/android/inventory/parsers/packages.js';
import { fixture } from '../fixture.js';

describe('pm list packages, recorded', () => {
  it('MAGCH M610-EEA (Android 11 Go): Chrome preinstalled, Opera added by the owner', () => {
    const packages = parsePackages(fixture('packages', 'magch-m610-eea-android11go.txt'));
    // 192 lines in the recording, every one a "package:" line, no duplicates.
    expect(packages.size).toBe(192);
    expect(packages.has('com.google.android.webview')).toBe(true);
    // WebView and the htmlviewer are not browsers the cloud can drive; only these two are.
    expect(installedBrowsers(packages)).toEqual([{ name: 'chrome' }, { name: 'opera' }]);
  });

  it('the same list with CRLF line ends (adb shell through a pty) gives the same browsers', () => {
    const text = fixture('packages', 'magch-m610-eea-android11go.txt').replace(/\n/g, '\r\n');
    expect(installedBrowsers(parsePackages(text))).toEqual([{ name: 'chrome' }, { name: 'opera' }]);
  });
});

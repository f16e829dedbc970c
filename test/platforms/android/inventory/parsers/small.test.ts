// Parsers of one-line outputs: settings values, uptime, date, id, su listing, packages.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { installedBrowsers, parsePackages } from '../../../../../src/platforms/android/inventory/parsers/packages.js';
import { parseIdUid, parseSuListing } from '../../../../../src/platforms/android/inventory/parsers/root.js';
import { parseSettingOrUnset, parseSettingText, parseSettingValue } from '../../../../../src/platforms/android/inventory/parsers/settings.js';
import { parseUptimeSeconds } from '../../../../../src/platforms/android/inventory/parsers/uptime.js';
import { fixture } from '../fixture.js';
import { bluetoothName, deviceName } from '../../../../../src/platforms/android/inventory/probes/device.js';

describe('parseSettingValue', () => {
  it.each([
    ['Galaxy S25+\n', 'Galaxy S25+'],
    ['null\n', undefined],
    ['', undefined],
    ['/system/bin/sh: settings: inaccessible or not found\n', undefined],
    ['Exception occurred while executing:\njava.lang.SecurityException: ...\n', undefined],
    // toybox timeout wrapping a command the device lacks (seen through the simulator).
    ['timeout: exec settings: No such file or directory\n', undefined],
    ["cmd: Can't find service: settings\n", undefined],
    // The one-line errors of the settings command's own source (parsers/settings.ts names each), never a value.
    ["Can't find service: settings\n", undefined],
    ['Unable to run settings command\n', undefined],
    ['Error while accessing settings provider\n', undefined],
    ["Invalid namespace 'global '\n", undefined],
    ['Invalid command: get\n', undefined],
    ['Too many arguments\n', undefined],
    ['Bad arguments\n', undefined],
    ['Invalid user: 10\n', undefined],
    ["Can't read key device_name in global for user 0\n", undefined],
    // A value that merely starts like one is still a value.
    ['Invalidator 3000\n', 'Invalidator 3000'],
  ])('%j', (text, value) => {
    expect(parseSettingValue(text)).toBe(value);
  });
});

describe('parseSettingText (a name a person typed)', () => {
  it.each([
    ['Galaxy S25+\n', 'Galaxy S25+'],
    // settings put global device_name "$(printf 'Lab\nrack 3')": get prints the value as it is, over two lines.
    ['Lab\nrack 3\n', 'Lab\nrack 3'],
    ['Lab\r\n\r\nrack 3\r\n', 'Lab\n\nrack 3'],
    ['null\n', undefined],
    ['\n\n', undefined],
    ['Exception occurred while executing:\njava.lang.SecurityException: ...\n', undefined],
    ['Pixel\n/system/bin/sh: settings: inaccessible or not found\n', undefined],
  ])('%j', (text, value) => {
    expect(parseSettingText(text)).toBe(value);
  });
});

describe('the device name probes', () => {
  it('read a name with a newline as that name, not as a failure to fall back from', () => {
    expect(deviceName.parse('Lab\nrack 3\n')).toBe('Lab\nrack 3');
    expect(bluetoothName.parse('Lab\nrack 3\n')).toBe('Lab\nrack 3');
  });
});

describe("Samsung's protect_battery (settings get global protect_battery)", () => {
  it('one line: on, off, unset; a failed call is none of them', () => {
    expect(parseSettingOrUnset(fixture('settings', 'protect-battery-on.txt'))).toBe('1');
    expect(parseSettingOrUnset(fixture('settings', 'protect-battery-off.txt'))).toBe('0');
    expect(parseSettingOrUnset(fixture('settings', 'protect-battery-unset.txt'))).toBe('null');
    expect(parseSettingOrUnset('/system/bin/sh: settings: inaccessible or not found\n')).toBeUndefined();
    expect(parseSettingOrUnset('')).toBeUndefined();
  });
});

describe('uptime', () => {
  it('seconds since boot from /proc/uptime, with the fraction bootTime needs', () => {
    expect(parseUptimeSeconds('350735.47 234388.90\n')).toBe(350735.47);
    expect(parseUptimeSeconds('cat: /proc/uptime: No such file')).toBeUndefined();
    expect(parseUptimeSeconds('')).toBeUndefined();
  });
});

describe('root evidence', () => {
  it('uid of the adb shell', () => {
    expect(parseIdUid('uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input) context=u:r:shell:s0')).toBe(2000);
    expect(parseIdUid('uid=0(root) gid=0(root)')).toBe(0);
    expect(parseIdUid('id: not found')).toBeUndefined();
    // Pixel 6 (oriole): groups and SELinux context follow the uid on one line.
    expect(parseIdUid(fixture('root', 'id-shell-pixel6-oriole.txt'))).toBe(2000);
  });

  it('su listing in toolbox and toybox forms', () => {
    expect(parseSuListing('-rwsr-sr-x root     root        67 2014-06-05 10:00 su')).toBe(true);
    expect(parseSuListing('/system/bin/su: No such file or directory\n/system/xbin/su: No such file or directory')).toBe(false);
    expect(parseSuListing('ls: /sbin/su: Permission denied\nls: /system/xbin/su: No such file or directory')).toBe(false);
    expect(parseSuListing('')).toBeUndefined();
  });
});

describe('packages and browsers', () => {
  it('known browsers among installed packages', () => {
    const packages = parsePackages('package:com.android.chrome\r\npackage:com.sec.android.app.sbrowser\npackage:com.example\n');
    expect(installedBrowsers(packages)).toEqual([{ name: 'chrome' }, { name: 'samsung-internet' }]);
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void installedBrowsers(parsePackages(text))));
    fc.assert(fc.property(fc.string(), (text) => void parseSuListing(text)));
    fc.assert(fc.property(fc.string(), (text) => void parseSettingValue(text)));
  });
});

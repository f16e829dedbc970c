// Root evidence and settings values against recorded outputs (sources in fixtures/SOURCES.md).
import { describe, expect, it } from 'vitest';
import { parseProxySetting } from '../../../../../src/platforms/android/inventory/parsers/network.js';
import { parseIdUid, parseSuListing } from '../../../../../src/platforms/android/inventory/parsers/root.js';
import { id as idProbe, rootVerdict, su as suProbe } from '../../../../../src/platforms/android/inventory/probes/device.js';
import { fixture } from '../fixture.js';

const ROOT_ID = fixture('root', 'id-adb-root-emulator-generic-x86.txt');
const SHELL_ID = fixture('root', 'id-shell-pixel6-oriole.txt');
const MAGISK_SBIN = fixture('root', 'ls-sbin-magisk-dilink3-android10.txt');
const MISSING = fixture('root', 'ls-missing-path-rootbeer-219.txt');

describe('id after adb root', () => {
  it('reads uid 0 from an emulator shell restarted as root', () => {
    expect(parseIdUid(ROOT_ID)).toBe(0);
  });

  it('does not take gid=0 or groups=0(root) for the uid', () => {
    // The uid field alone decides: a shell uid with root's group in the list stays 2000.
    expect(parseIdUid(ROOT_ID.replace('uid=0(root)', 'uid=2000(shell)'))).toBe(2000);
  });
});

describe('su listing', () => {
  it('a Magisk /sbin listing with su -> ./magisk is rooted, despite the Permission denied lines', () => {
    expect(parseSuListing(MAGISK_SBIN)).toBe(true);
  });

  it('the same listing without its su link says nothing of su', () => {
    const withoutSu = MAGISK_SBIN.split('\n')
      .filter((line) => !/ su -> /.test(line))
      .join('\n');
    expect(parseSuListing(withoutSu)).not.toBe(true);
  });

  it('a classic setuid su (Superuser, toolbox ls) is rooted', () => {
    expect(parseSuListing(fixture('root', 'ls-system-bin-su-superuser-ics-emulator.txt'))).toBe(true);
  });

  it('only "No such file or directory" lines mean no su', () => {
    expect(parseSuListing(MISSING)).toBe(false);
    // CRLF from older adb shells must not change that.
    expect(parseSuListing(MISSING.replace(/\n/g, '\r\n'))).toBe(false);
  });

  it('a symlink named like su but longer is not su', () => {
    // Invented edge case: "sudo"/"supolicy" entries alone are not an su binary.
    const supolicyOnly = MAGISK_SBIN.split('\n')
      .filter((line) => line.includes('supolicy'))
      .join('\n');
    expect(parseSuListing(supolicyOnly)).not.toBe(true);
  });
});

describe('isRooted from the recorded sections (the id probe owns the field)', () => {
  const isRooted = ({ id, su }: { id: string; su: string }) => rootVerdict(suProbe.parse(su), idProbe.parse(id));
  const sections = (id: string, su: string) => ({ id, su });

  it('uid 0 alone is enough, even when no su is listed', () => {
    expect(isRooted(sections(ROOT_ID, MISSING))).toBe(true);
  });

  it('a Magisk su under a uid 2000 shell is rooted', () => {
    expect(isRooted(sections(SHELL_ID, MAGISK_SBIN))).toBe(true);
  });

  it('a uid 2000 shell with no su is not rooted', () => {
    expect(isRooted(sections(SHELL_ID, MISSING))).toBe(false);
  });
});

describe('settings get global http_proxy', () => {
  // Recorded answers (fixtures/network/): "null" when never set, ":0" after
  // `settings put global http_proxy :0` (how tools clear it), host:port when set.
  const proxyOf = parseProxySetting;

  it.each([
    ['http-proxy-null-emulator-api36.txt', false],
    ['http-proxy-set-emulator-api36.txt', true],
    ['http-proxy-set-phone-3bbf38b8.txt', true],
    ['http-proxy-cleared-phone-3bbf38b8.txt', false],
  ])('%s', (file, proxy) => {
    const text = fixture('network', file);
    expect(proxyOf(text)).toBe(proxy);
    // Android 6 and older answer through a pty.
    expect(proxyOf(text.replace(/\n/g, '\r\n'))).toBe(proxy);
  });

  it('a failed settings call says nothing about the proxy', () => {
    expect(proxyOf('/system/bin/sh: settings: inaccessible or not found\n')).toBeUndefined();
    expect(proxyOf("cmd: Can't find service: settings\n")).toBeUndefined();
  });
});

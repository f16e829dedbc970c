// Which iOS versions the host's tools support (support.ts's table), and the
// tools' own words for their versions (fixtures/SOURCES.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { iosVersionOf, parseGoIosVersion, parsePymobiledevice3Version, supportOf, type ToolFound } from '../../../src/features/ios-developer/support.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
const goIos = (v: [number, number, number]): ToolFound => ({ tool: 'go-ios', state: 'found', version: v });
const pmd3 = (v: [number, number, number]): ToolFound => ({ tool: 'pymobiledevice3', state: 'found', version: v });
const absent: ToolFound[] = [
  { tool: 'go-ios', state: 'absent' },
  { tool: 'pymobiledevice3', state: 'absent' },
];

describe("the tools' versions", () => {
  it('go-ios: a release says its number, with or without JSON; a build from source says local-build: none', () => {
    expect(parseGoIosVersion(fixture('go-ios-version-release.txt'))).toEqual([1, 3, 2]);
    expect(parseGoIosVersion(fixture('go-ios-version-nojson.txt'))).toEqual([1, 0, 122]);
    expect(parseGoIosVersion('v1.0.150\n')).toEqual([1, 0, 150]);
    expect(parseGoIosVersion(fixture('go-ios-version-local-build.txt'))).toBeUndefined();
    expect(parseGoIosVersion('{"version": 3}')).toBeUndefined();
    expect(parseGoIosVersion('{not json')).toBeUndefined();
  });

  it('pymobiledevice3: its __version__; the sentence of a build it cannot tell, or anything else: none', () => {
    expect(parsePymobiledevice3Version(fixture('pymobiledevice3-version.txt'))).toEqual([9, 30, 1]);
    expect(parsePymobiledevice3Version(fixture('pymobiledevice3-version-undetermined.txt'))).toBeUndefined();
    expect(parsePymobiledevice3Version("Usage: pymobiledevice3 [OPTIONS] COMMAND [ARGS]...\nError: No such command 'version'.")).toBeUndefined();
  });

  it("an iPhone's version as major and minor", () => {
    expect(iosVersionOf('17.5.1')).toEqual([17, 5]);
    expect(iosVersionOf('26')).toEqual([26, 0]);
    expect(iosVersionOf('18.2')).toEqual([18, 2]);
    expect(iosVersionOf('18.2 beta')).toBeUndefined();
    expect(iosVersionOf(undefined)).toBeUndefined();
  });
});

describe("the host's support table", () => {
  it('before iOS 17 nothing more is needed', () => {
    expect(supportOf([16, 7], absent, [])).toEqual({ kind: 'supported' });
    expect(supportOf([9, 3], absent, [])).toEqual({ kind: 'supported' });
  });

  it('iOS 17 to 26 with go-ios 1.0.122 or later, or pymobiledevice3 2.21.0 or later: supported', () => {
    expect(supportOf([17, 0], [goIos([1, 0, 122])], [])).toEqual({ kind: 'supported', by: 'go-ios' });
    expect(supportOf([26, 1], [goIos([1, 3, 2])], ['go-ios'])).toEqual({ kind: 'supported', by: 'go-ios' });
    expect(supportOf([18, 4], [goIos([1, 0, 100]), pmd3([9, 30, 1])], [])).toEqual({ kind: 'supported', by: 'pymobiledevice3' });
  });

  it('no tool, or only older ones: not supported on this host, with the first versions that are', () => {
    expect(supportOf([17, 5], absent, [])).toEqual({
      kind: 'not-supported',
      install:
        'go-ios 1.0.122 or later (`npm install -g go-ios` or its release binary `ios`), then `ios tunnel start`; or pymobiledevice3 2.21.0 or later (`python3 -m pip install -U pymobiledevice3`), then `pymobiledevice3 remote tunneld`',
    });
    expect(supportOf([17, 5], [goIos([1, 0, 121]), pmd3([2, 20, 9])], [])).toMatchObject({ kind: 'not-supported' });
  });

  it("iOS 18.2 and later on go-ios's userspace tunnel needs go-ios 1.2.0; on its kernel tunnel 1.0.122 does", () => {
    expect(supportOf([18, 2], [goIos([1, 1, 9])], ['go-ios'], true)).toMatchObject({
      kind: 'not-supported',
      install: expect.stringMatching(/^go-ios 1\.2\.0 or later/),
    });
    expect(supportOf([18, 1], [goIos([1, 1, 9])], ['go-ios'], true)).toEqual({ kind: 'supported', by: 'go-ios' });
    expect(supportOf([18, 2], [goIos([1, 1, 9])], ['go-ios'], false)).toEqual({ kind: 'supported', by: 'go-ios' });
  });

  it("a tool whose version does not read, or a daemon that answers while its tool is not on the agent's PATH: unknown, never unsupported", () => {
    expect(supportOf([17, 5], [{ tool: 'go-ios', state: 'unreadable', said: 'local-build' }], [])).toMatchObject({ kind: 'unknown' });
    expect(supportOf([17, 5], absent, ['tunneld'])).toMatchObject({ kind: 'unknown', why: expect.stringContaining('pymobiledevice3 is not on') });
  });
});

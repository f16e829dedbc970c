import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDf, parseSize } from '../../../../../src/platforms/android/inventory/parsers/df.js';
import { fixture } from '../fixture.js';

const G = 1024 ** 3;
const M = 1024 ** 2;

describe('parseDf', () => {
  it('toolbox (Android 6): the /data row, decimal sizes with units', () => {
    expect(parseDf(fixture('df', 'toolbox-android6-sony-so02h.txt'))).toEqual({
      total: Math.round(21.9 * G),
      used: Math.round(12.1 * G),
    });
  });

  it('toolbox (Android 4): whole units', () => {
    expect(parseDf(fixture('df', 'toolbox-android4-whole-units.txt'))).toEqual({ total: 27 * G, used: 19 * G });
  });

  it('toybox -h (Android 14): mount point in the last column', () => {
    expect(parseDf(fixture('df', 'toybox-human-android14.txt'))).toEqual({ total: 24 * G, used: 23 * G });
  });

  it('toybox 1K-blocks: no /data row among several means unknown', () => {
    const text = fixture('df', 'toybox-1k-android7-nexus5x-no-data.txt');
    expect(parseDf(text)).toBeUndefined();
    expect(parseDf(text, '/system')).toEqual({ total: 2999516 * 1024, used: 2430552 * 1024 });
  });

  it('toybox `df /data` prints one row: that row counts (invented from the Nexus 5X format)', () => {
    const text = 'Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/block/dm-2 26225216 4883332 21341884 19% /data\n';
    expect(parseDf(text)).toEqual({ total: 26225216 * 1024, used: 4883332 * 1024 });
  });

  it('a long device name on its own line (invented)', () => {
    const text = 'Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/block/platform/soc/7824900.sdhci/by-name/userdata\n 100 40 60 40% /data\n';
    expect(parseDf(text)).toEqual({ total: 102400, used: 40960 });
  });

  it('errors and garbage give undefined', () => {
    expect(parseDf('df: /data: Permission denied\n')).toBeUndefined();
    expect(parseDf('Filesystem Size\n/data x y z 4096\n')).toBeUndefined();
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseDf(`Filesystem 1K-blocks Used Available Use% Mounted on\n${text}`);
        parseDf(text);
      }),
    );
  });
});

describe('parseSize', () => {
  it.each([
    ['304.0K', 311296],
    ['1.1G', Math.round(1.1 * G)],
    ['0', 0],
    ['12', 12],
    ['2M', 2 * M],
    ['x', undefined],
  ])('%s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });
});

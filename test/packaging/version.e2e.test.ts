import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareVersions, formatVersion, nextVersion, parseVersion, type Version } from '../../packaging/version.js';

const v = (text: string): Version => {
  const parsed = parseVersion(text);
  if (!parsed) throw new Error(`not a version: ${text}`);
  return parsed;
};

describe('version scheme YYMM.DD[.N]', () => {
  it('reads and writes the day and the build of the day', () => {
    expect(parseVersion('2611.23')).toEqual({ year: 26, month: 11, day: 23, build: 0 });
    expect(parseVersion('2601.05.2')).toEqual({ year: 26, month: 1, day: 5, build: 2 });
    for (const text of ['2611.23', '2601.05.2', '3012.31.10']) expect(formatVersion(v(text))).toBe(text);
  });

  it('refuses what is not a build day (semver, month 13, day 0, a zero or padded suffix)', () => {
    for (const text of ['0.1.0', '2613.01', '2611.00', '2611.32', '2611.23.0', '2611.23.01', '2611.3', '261123', '2611.23-1', ' 2611.23']) {
      expect(parseVersion(text), text).toBeUndefined();
    }
  });

  it('orders by day, then by build of the day', () => {
    const sorted = ['2512.31', '2611.23', '2611.23.1', '2611.23.2', '2611.23.10', '2611.24', '2612.01'];
    const shuffled = [...sorted].reverse();
    expect(shuffled.sort((a, b) => compareVersions(v(a), v(b)))).toEqual(sorted);
  });

  it('orders as dpkg does, so that upgrade and rollback go where the numbers say', () => {
    const pairs: Array<[string, string]> = [
      ['2611.23', '2611.23.1'],
      ['2611.23.1', '2611.23.2'],
      ['2611.23.9', '2611.23.10'],
      ['2611.23.10', '2611.24'],
      ['2612.31', '2701.01'],
    ];
    for (const [older, newer] of pairs) {
      expect(compareVersions(v(older), v(newer)), `${older} < ${newer}`).toBeLessThan(0);
      // dpkg exits 0 when the relation holds.
      expect(() => execFileSync('dpkg', ['--compare-versions', older, 'lt', newer])).not.toThrow();
    }
  });

  it("gives the next build today's day, or the next suffix of a day already released", () => {
    const nov23 = new Date('2026-11-23T18:00:00Z');
    expect(formatVersion(nextVersion(v('2611.20'), nov23))).toBe('2611.23');
    expect(formatVersion(nextVersion(v('2611.23'), nov23))).toBe('2611.23.1');
    expect(formatVersion(nextVersion(v('2611.23.4'), nov23))).toBe('2611.23.5');
    // A build machine whose clock is behind the last release never goes back.
    expect(formatVersion(nextVersion(v('2611.25'), nov23))).toBe('2611.25.1');
    expect(formatVersion(nextVersion(undefined, new Date('2027-01-02T00:30:00Z')))).toBe('2701.02');
  });

  it('is the version of package.json, the one place it is written', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      version: string;
      packages: Record<string, { version: string }>;
    };
    expect(parseVersion(pkg.version), pkg.version).toBeDefined();
    expect(lock.version).toBe(pkg.version);
    expect(lock.packages['']!.version).toBe(pkg.version);
  });
});

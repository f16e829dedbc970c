import { describe, expect, it } from 'vitest';
import { bullet, dayVersion, renderChangelog, rfc2822 } from '../../packaging/changelog.js';

// The package's changelog from git log: a day an entry, newest first, the
// top entry the packaged version; lines that dpkg-parsechangelog and
// lintian accept (80 columns at most).

const day = (iso: string) => Date.parse(iso) / 1000;

describe('debian changelog from the history', () => {
  const text = renderChangelog({
    version: '2611.23.1',
    maintainer: 'device-agent maintainers <m@example.test>',
    note: 'Built from commit abc with Node.js 24.21.0.',
    commits: [
      { time: day('2026-11-23T10:00:00Z'), subject: 'Newest change' },
      { time: day('2026-11-23T09:00:00Z'), subject: 'A long subject '.repeat(12).trim() },
      { time: day('2026-11-21T12:00:00Z'), subject: 'Oldest change' },
    ],
  });

  it('has an entry per day, the top one at the packaged version, dated by its newest commit', () => {
    const heads = text.split('\n').filter((l) => l.startsWith('device-agent ('));
    expect(heads).toEqual(['device-agent (2611.23.1) unstable; urgency=medium', 'device-agent (2611.21) unstable; urgency=medium']);
    expect(text).toContain(' -- device-agent maintainers <m@example.test>  Mon, 23 Nov 2026 10:00:00 +0000');
    expect(text.indexOf('Newest change')).toBeLessThan(text.indexOf('Oldest change'));
    expect(text.split('\n').every((l) => l.length <= 80)).toBe(true);
  });

  it('wraps a subject as a bullet and numbers a day as the version scheme does', () => {
    expect(bullet('a b c')).toEqual(['  * a b c']);
    expect(
      bullet('word '.repeat(30))
        .slice(1)
        .every((l) => l.startsWith('    ')),
    ).toBe(true);
    expect(dayVersion(day('2026-01-05T23:59:59Z'))).toBe('2601.05');
    expect(rfc2822(day('2026-11-24T03:04:05Z'))).toBe('Tue, 24 Nov 2026 03:04:05 +0000');
  });

  it('without history, one entry for the build', () => {
    expect(renderChangelog({ version: '2611.23', maintainer: 'm <m@e>', note: 'Built.', commits: [] })).toMatch(
      /^device-agent \(2611\.23\)[^]*\* Built\.\n\n -- m <m@e> {2}/,
    );
  });
});

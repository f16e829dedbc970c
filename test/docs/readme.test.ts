import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README is for operators (issue 61, 11): short enough to read, its
// first paragraph about what the agent does for them, its commands as an
// installed host runs them, and the packages the tests need named where a
// developer looks first.

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const section = (heading: string): string => {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `no "## ${heading}" in the README`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
};

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('opens with what the agent does for an operator: no test file, no report budget internals', () => {
    const opening = readme.slice(0, readme.indexOf('\n## '));
    expect(opening).not.toMatch(/test\/|\.test\.ts|budget|token|refills/);
    expect(opening).toMatch(/Android phones through the adb\s+server and iPhones through usbmuxd/);
  });

  it('writes every command as an installed host runs it, and says how a checkout runs them', () => {
    const shell = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
    const agent = shell.filter((l) => /\bdevice-agent (run|once|list|doctor|--help|--version|help|version)\b/.test(l));
    expect(agent.length).toBeGreaterThan(4);
    for (const line of agent) expect(line, line).toMatch(/^device-agent /);
    expect(section('Commands and exit codes')).toContain('in a checkout, run `npx device-agent ...`');
  });

  it('names in Build and test every Debian package .ci/run installs for the tests and the deploy checks', () => {
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    const packages = [...ci.matchAll(/missing\+=\(([a-z0-9.+-]+)\)/g)].map((m) => m[1]!);
    expect(packages.length).toBeGreaterThan(10);
    const build = section('Build and test');
    expect(packages.filter((p) => !build.includes(`\`${p}\``))).toEqual([]);
  });
});

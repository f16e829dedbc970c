import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readmeStep } from '../deploy/readme-steps.js';

// The README is for operators (issue 61, 11): short enough to read, its
// first paragraph about what the agent does for them, its commands as an
// installed host runs them, and the command that installs the tools the
// tests run where a developer looks first.

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

  it("gives in Build and test one install command, as root or with sudo, which .ci/run runs too: one list of the tests' tools", () => {
    // As test/deploy/systemd.sh reads them to run them in a fresh Debian.
    const commands = readmeStep(readme, '## Build and test')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim());
    // Not `sudo apt-get ...`: a root shell on a fresh Debian has no sudo (issue 70); the script asks sudo only when not root.
    expect(commands).toEqual(['sh tools/install-system-tools.sh', 'npm ci', 'npm test']);
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    expect(ci).toMatch(/^sh tools\/install-system-tools\.sh --deploy$/m);
    expect(ci).not.toMatch(/apt-get/);
  });
});

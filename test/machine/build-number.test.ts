import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildNumber } from '../../src/machine/build-number.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

function root(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'da-build-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('buildNumber', () => {
  it('is the variable when a packager sets it', () => {
    expect(buildNumber(root({ 'build-number': 'abc\n' }), '2611.23', { DEVICE_AGENT_BUILD_NUMBER: 'ci-77' })).toBe('ci-77');
  });

  it('is what the package build stamped, in an installed copy without .git', () => {
    expect(buildNumber(root({ 'build-number': '68e0779a1b2c\n' }), '2611.23', {})).toBe('68e0779a1b2c');
  });

  it("is the checkout's commit, through a branch or a detached HEAD", () => {
    expect(buildNumber(root({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${COMMIT}\n` }), '2611.23', {})).toBe('0123456789ab');
    expect(buildNumber(root({ '.git/HEAD': `${COMMIT}\n` }), '2611.23', {})).toBe('0123456789ab');
  });

  it('is the commit of a linked worktree, whose branch lives in the main checkout', () => {
    const main = root({
      '.git/refs/heads/feature': `${COMMIT}\n`,
      '.git/worktrees/wt/HEAD': 'ref: refs/heads/feature\n',
      '.git/worktrees/wt/commondir': '../..\n',
    });
    const worktree = root({ '.git': `gitdir: ${join(main, '.git/worktrees/wt')}\n` });
    expect(buildNumber(worktree, '2611.23', {})).toBe('0123456789ab');
  });

  it('is the commit of a branch that `git gc` packed', () => {
    expect(
      buildNumber(root({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/packed-refs': `# pack-refs with: peeled\n${COMMIT} refs/heads/main\n` }), '2611.23', {}),
    ).toBe('0123456789ab');
  });

  it('is the version when nothing says more (a missing ref, an empty stamp)', () => {
    expect(buildNumber(root({ '.git/HEAD': 'ref: refs/heads/gone\n' }), '2611.23', {})).toBe('2611.23');
    expect(buildNumber(root({ 'build-number': '\n' }), '2611.23', {})).toBe('2611.23');
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link in the README, CONTRIBUTING.md and docs/ resolves in a
// clone: the file or folder exists, and an #anchor names a heading of the
// page it points to (as GitHub makes heading anchors).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? markdownFiles(path) : e.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

const pages = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...markdownFiles(join(root, 'docs'))];

describe('links in the README and docs/', () => {
  it('a heading slug is what GitHub makes of it', () => {
    expect(slug('Commands and exit codes')).toBe('commands-and-exit-codes');
    expect(slug('Checking the setup: `device-agent doctor`')).toBe('checking-the-setup-device-agent-doctor');
  });

  it.each(pages.map((p) => [relative(root, p), p]))('%s: every relative link resolves', (_name, page) => {
    const broken: string[] = [];
    for (const link of links(page)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? page : resolve(dirname(page), decodeURI(path));
      if (!existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor && statSync(target).isFile() && target.endsWith('.md') && !anchors(target).has(anchor)) broken.push(`${link}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// docs/design/architecture.md names files and folders as the map of src/: each
// must exist, so the map cannot drift from the code without this failing.

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/design/architecture.md', root), 'utf8');

describe('docs/design/architecture.md', () => {
  it('names only paths that exist (NAME stands for the one being added)', () => {
    const paths = [...doc.matchAll(/`((?:src|test|docs)\/[^`\s]*)`/g)].map((m) => m[1]!).filter((p) => !p.includes('NAME'));
    expect(paths.length).toBeGreaterThan(20);
    const missing = paths.filter((p) => !existsSync(new URL(p.replace(/\/$/, ''), root)));
    expect(missing).toEqual([]);
  });

  it('lists every folder of src/ in its module map', () => {
    const folders = readdirSync(new URL('src/', root), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !doc.includes(`\`src/${f}/\``))).toEqual([]);
  });
});

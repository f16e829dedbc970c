import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every page of docs/ the agent's output names resolves where it runs (issue 70): the code names a page through
// docPath (src/util/package.ts), which on a packaged host is /usr/share/doc/device-agent/<name>, and the package
// ships each such page there (DOC_PAGES of packaging/deb/build.sh).

const root = fileURLToPath(new URL('../../', import.meta.url));
const build = readFileSync(join(root, 'packaging/deb/build.sh'), 'utf8');
const shipped = /^DOC_PAGES='([^']*)'$/m.exec(build)?.[1]?.split(' ') ?? [];

/** The strings and templates of a file's code, as TypeScript parses it (comments left out). */
function texts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

// The settings' help texts are the settings reference's own cells (docs/reference/configuration.md, a page of docs/
// itself): their links are relative to it, and they are not the agent's output.
const files = sources(join(root, 'src')).filter((f) => !/\/(settings|schema)\.ts$/.test(f));
const named = new Set(files.flatMap((f) => texts(f).flatMap((t) => [...t.matchAll(/docs\/[\w/-]+\.md/g)].map((m) => m[0]))));
const throughDocPath = new Set(files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/docPath\('(docs\/[\w/-]+\.md)'/g)].map((m) => m[1]!)));

describe('the pages of docs/ the agent names', () => {
  it('are each named through docPath, and the package ships each under its name', () => {
    expect(named.size).toBeGreaterThan(3);
    expect([...named].filter((page) => !throughDocPath.has(page))).toEqual([]);
    expect([...named].filter((page) => !shipped.includes(page))).toEqual([]);
  });

  it('exist, doctor.md among them, and no two share a name in /usr/share/doc/device-agent', () => {
    expect(shipped).toContain('docs/reference/doctor.md');
    expect(shipped.filter((page) => !existsSync(join(root, page)))).toEqual([]);
    const names = shipped.map((page) => basename(page));
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => ['README.md', 'changelog', 'copyright'].includes(n))).toEqual([]);
  });
});

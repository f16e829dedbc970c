import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredTests, referenceMatches } from './test-titles.js';

// docs/design/statements.md lists what the agent tells an operator, each
// statement with where it is made, whom it blames, its evidence and the test
// that shows it. This keeps it honest: every row has its five cells, the file
// it names exists, and every test it names exists (a path, or a path and the
// test's titles after " > ", as the fault matrix names them); a row without a
// test says "untested".

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(join(root, 'docs/design/statements.md'), 'utf8');

/** The rows of the statement tables: five cells, escaped pipes kept in their cell. */
const rows = doc
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| statement |') && !/^\|[-| ]+\|$/.test(l))
  .map((l) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim()),
  );

/** Every `test/...test.ts` or `test/...test.ts > title > title` the doc names, in its tables or its text. */
const references = [...doc.matchAll(/`(test\/[^`\s]+\.test\.ts)(?: > ([^`]+))?`/g)].map((m) => ({
  file: m[1]!,
  titles: m[2] ? m[2].split(' > ').map((t) => t.trim()) : [],
}));

describe('docs/design/statements.md, what the agent tells an operator', () => {
  it('has a row for each statement with its five cells, each made in a file that exists', () => {
    expect(rows.length).toBeGreaterThan(90);
    const problems = rows.flatMap((cells) => {
      const where = cells[0]?.slice(0, 60);
      if (cells.length !== 5 || cells.some((c) => c === '')) return [`${where}: ${cells.length} cells, some empty`];
      const file = /^`(src\/[^`]+)`$/.exec(cells[1]!)?.[1];
      if (!file || !existsSync(join(root, file))) return [`${where}: made in ${cells[1]}, not a file of src/`];
      if (cells[4] !== 'untested' && !/^`test\/[^`]+\.test\.ts( > [^`]+)?`$/.test(cells[4]!)) return [`${where}: test cell "${cells[4]}"`];
      return [];
    });
    expect(problems).toEqual([]);
  });

  it('names only tests that exist', () => {
    expect(references.length).toBeGreaterThan(80);
    const missing = references
      .filter(({ file, titles }) => {
        if (!existsSync(join(root, file))) return true;
        return titles.length > 0 && !declaredTests(root, file).some((t) => referenceMatches({ file, titles }, t));
      })
      .map(({ file, titles }) => [file, ...titles].join(' > '));
    expect(missing).toEqual([]);
  });
});

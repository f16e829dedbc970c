import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredTests, referenceMatches } from './test-titles.js';

// Each feature's folder (src/features/NAME/) has a README saying what it
// promises and which test keeps each promise: every promise names a test
// that exists (`test/...test.ts > suite > title`, as the fault matrix names
// them), so a README cannot keep a promise no test holds.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const folders = readdirSync(join(root, 'src/features'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `src/features/${e.name}`);

describe("the features' READMEs", () => {
  it('every feature folder has one', () => {
    expect(folders.length).toBeGreaterThanOrEqual(9);
    expect(folders.filter((f) => !existsSync(join(root, f, 'README.md')))).toEqual([]);
  });

  it.each(folders.map((f) => [f]))('%s/README.md names a test for each promise, and only tests that exist', (folder) => {
    const text = readFileSync(join(root, folder, 'README.md'), 'utf8');
    const rows = text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| promise |'));
    expect(rows.length).toBeGreaterThan(0);
    const references = rows.map((row) => /`(test\/[^`\s]+\.test\.ts) > ([^`]+)`/.exec(row));
    expect(references.filter((r) => r === null).length, 'a promise without its test').toBe(0);
    const missing = references.flatMap((r) => {
      const file = r![1]!;
      const titles = r![2]!.split(' > ').map((t) => t.trim());
      const found = existsSync(join(root, file)) && declaredTests(root, file).some((t) => referenceMatches({ file, titles }, t));
      return found ? [] : [`${file} > ${titles.join(' > ')}`];
    });
    expect(missing).toEqual([]);
  });
});

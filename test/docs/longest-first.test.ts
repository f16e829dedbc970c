import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// vitest.config.ts starts the e2e files in LONGEST_FIRST first. A file
// renamed, deleted or moved out of the e2e tier drops out of that order
// without a word, and the tier's tail grows back: this says so instead.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Imported by its path at run time: a static import would pull the config
// into tsconfig's program, and eslint lints it in a default project of its own.
const config = (await import(pathToFileURL(join(root, 'vitest.config.ts')).href)) as { E2E: string[]; LONGEST_FIRST: string[] };
const { E2E, LONGEST_FIRST } = config;

/** The include patterns the config uses: `dir/**` + `/*.test.ts` and `test/**` + `/*.e2e.test.ts`. */
function matches(path: string, pattern: string): boolean {
  const source = pattern
    .split('**/')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('(?:[^/]+/)*');
  return new RegExp(`^${source}$`).test(path);
}

describe("vitest.config.ts's LONGEST_FIRST", () => {
  it('the patterns are read as vitest reads them', () => {
    expect(matches('test/e2e/fleet.test.ts', 'test/e2e/**/*.test.ts')).toBe(true);
    expect(matches('test/e2e/a/b.test.ts', 'test/e2e/**/*.test.ts')).toBe(true);
    expect(matches('test/e2e/agent-process.ts', 'test/e2e/**/*.test.ts')).toBe(false);
    expect(matches('test/e2ex/fleet.test.ts', 'test/e2e/**/*.test.ts')).toBe(false);
    expect(matches('test/sim/farm.e2e.test.ts', 'test/**/*.e2e.test.ts')).toBe(true);
    expect(matches('test/sim/farm.test.ts', 'test/**/*.e2e.test.ts')).toBe(false);
  });

  it.each(LONGEST_FIRST)('%s exists and is in the e2e project', (path) => {
    expect(existsSync(join(root, path)), `${path} is not there: renamed or deleted? Update LONGEST_FIRST in vitest.config.ts`).toBe(true);
    expect(
      E2E.some((pattern) => matches(path, pattern)),
      `${path} is not in the e2e project: LONGEST_FIRST only orders e2e files`,
    ).toBe(true);
  });

  it('names each file once', () => {
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });
});

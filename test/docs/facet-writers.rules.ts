import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { facetTable } from './facet-table.js';
import { facetWrites, type FacetWrite } from './facet-writes.js';
import { srcProgram } from './src-program.js';

// Issue 41's rule "only a facet's owner writes its facet": every write to a
// facet in src/, found with the type checker (facet-writes.ts says what a
// write is and how its facet is told), against the column "written by" of
// the table "Per-device state" in docs/design/architecture.md. A second
// writer fails here, however it reaches the facet, and so does a write the
// checker cannot follow to its facetKey.

const root = new URL('../../', import.meta.url);
const rootPath = fileURLToPath(root);
const table = facetTable(readFileSync(new URL('docs/design/architecture.md', root), 'utf8'));
const program = srcProgram();
const { writes, lifecycle } = facetWrites(program, rootPath);

const where = (w: FacetWrite): string => `${w.file}:${w.line} (${w.call})`;

describe('only its owners write a facet (issue 41)', () => {
  it('every write to a facet in src/ is followed to the facetKey it writes', () => {
    expect(writes.filter((w) => w.unresolved !== undefined).map((w) => `${where(w)}: ${w.unresolved}`)).toEqual([]);
  });

  it('every write to a facet is in a file the table names as a writer of that facet', () => {
    const writers = new Map(table.map((row) => [row.name, row.writers]));
    const wrong = writes.flatMap((w) =>
      w.facets
        .filter((facet) => !writers.get(facet)?.includes(w.file))
        .map((facet) => `${where(w)} writes the facet ${facet}, which only ${writers.get(facet)?.join(', ') ?? '(no row of the table)'} may write`),
    );
    expect(wrong).toEqual([]);
  });

  it('every writer the table names writes that facet', () => {
    const idle = table.flatMap((row) =>
      row.writers.filter((file) => !writes.some((w) => w.file === file && w.facets.includes(row.name))).map((file) => `${file} writes no ${row.name}`),
    );
    expect(table.length).toBeGreaterThan(10);
    expect(idle).toEqual([]);
  });

  it("the registry's own writes drop a connection or record facet's entries as the key's keep says, and only in registry.ts", () => {
    // What the drops do is test/devices/registry.test.ts's; here, that they are the only writes no feature owns.
    const lines = readFileSync(new URL('src/devices/registry.ts', root), 'utf8').split('\n');
    expect(lifecycle.length).toBeGreaterThan(0);
    for (const w of lifecycle) {
      expect(w.file).toBe('src/devices/registry.ts');
      expect(lines[w.line - 1], where(w)).toMatch(/store\.keep (===|!==) '(connection|device)'\) store\.delete\(key\)/);
    }
  });
});

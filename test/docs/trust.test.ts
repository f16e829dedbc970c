import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredTests, referenceMatches, type DeclaredTest } from './test-titles.js';

// docs/design/trust.md names, for each limit on who may influence the agent,
// the test that shows it. This keeps it honest: every limit names a test or
// says it is pending, and every test it names exists.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(join(root, 'docs/design/trust.md'), 'utf8');

/** The rows of the Limits table: who, may cause, the limit, shown by. */
function limitRows(text: string): string[][] {
  const section = text.split(/^## /m).find((s) => s.startsWith('Limits'));
  if (!section) return [];
  return section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) =>
      l
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    )
    .filter((cells) => cells[0] !== 'who' && !cells.every((c) => /^-+$/.test(c)));
}

/** A deploy check named as `test/deploy/X.sh: the step's title`: the script says that step. */
function deploySteps(cell: string): Array<{ file: string; step: string }> {
  return [...cell.matchAll(/`(test\/deploy\/[^`\s]+\.sh): ([^`]+)`/g)].map((m) => ({ file: m[1]!, step: m[2]! }));
}

function references(cell: string): Array<{ file: string; titles: string[] }> {
  return [...cell.matchAll(/`(test\/[^`\s]+\.test\.ts) > ([^`]+)`/g)].map((m) => ({ file: m[1]!, titles: m[2]!.split(' > ').map((t) => t.trim()) }));
}

const rows = limitRows(doc);
const cache = new Map<string, DeclaredTest[]>();
const declared = (file: string): DeclaredTest[] | undefined => {
  if (!existsSync(join(root, file))) return undefined;
  if (!cache.has(file)) cache.set(file, declaredTests(root, file));
  return cache.get(file);
};

describe('docs/design/trust.md, the trust model', () => {
  it('has a limit for each party on the other side, four cells each', () => {
    for (const who of [
      'a phone or a USB gadget',
      'a local unprivileged user',
      'the network between the host and the cloud',
      'whoever writes `agent.env` or the config',
      "the cloud's answers",
      'the npm registry',
    ])
      expect(
        rows.some((r) => r[0] === who),
        who,
      ).toBe(true);
    expect(rows.filter((r) => r.length !== 4 || r.some((c) => c === ''))).toEqual([]);
  });

  it('names a test for every limit, or says it is pending', () => {
    expect(rows.filter((r) => references(r[3]!).length + deploySteps(r[3]!).length === 0 && r[3] !== 'pending, issue 35').map((r) => r[2])).toEqual([]);
  });

  it('names only tests that exist', () => {
    const refs = rows.flatMap((r) => references(r[3]!));
    expect(refs.length).toBeGreaterThan(15);
    const missing = refs.filter((r) => !declared(r.file)?.some((t) => referenceMatches(r, t))).map((r) => `${r.file} > ${r.titles.join(' > ')}`);
    expect(missing).toEqual([]);
    const steps = rows.flatMap((r) => deploySteps(r[3]!));
    const unsaid = steps.filter((s) => !existsSync(join(root, s.file)) || !readFileSync(join(root, s.file), 'utf8').includes(`say "${s.step}"`));
    expect(unsaid).toEqual([]);
  });
});

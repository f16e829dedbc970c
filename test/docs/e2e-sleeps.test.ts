import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { e2eSleeps, literalTotal } from './e2e-sleeps.js';

// The fixed sleeps of test/e2e, summed (how: test/docs/e2e-sleeps.ts): a sleep
// added shows here, with where it is; the budget comes down as sleeps go. The
// figure: `node -e "import('./test/docs/e2e-sleeps.ts').then((m) => console.log(m.literalTotal(m.e2eSleeps('.')) / 1000))"`
// (node_modules/node/bin/node, which strips the types).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUDGET_MS = 40_000;

describe('the fixed sleeps of test/e2e', () => {
  it('sum to less than the budget (issue 41)', () => {
    const sleeps = e2eSleeps(root);
    const list = sleeps
      .filter((s) => s.ms !== undefined)
      .sort((a, b) => b.ms! - a.ms!)
      .map((s) => `${s.where} ${s.text}`)
      .join('\n');
    expect(literalTotal(sleeps), `fixed sleeps, longest first (wait for the condition instead: test/support/wait.ts):\n${list}`).toBeLessThan(BUDGET_MS);
  });

  it('counts awaited sleep(N), setTimeout(N) and new Promise((r) => setTimeout(r, N)), folding the file’s constants', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sleeps-'));
    mkdirSync(join(dir, 'test/e2e'), { recursive: true });
    writeFileSync(
      join(dir, 'test/e2e/x.test.ts'),
      [
        'const PERIOD = 6_000;',
        'await sleep(1_000);',
        'await new Promise((r) => setTimeout(r, 2 * PERIOD + 500));',
        'await new Promise<void>((resolve) => { setTimeout(resolve, 100); });',
        'await setTimeout(50);',
        'await sleep(Math.max(0, deadline - Date.now()));',
        'setTimeout(() => kill(), 9_000);',
        'void sleep(7_000);',
      ].join('\n'),
    );
    const sleeps = e2eSleeps(dir);
    expect(sleeps.map((s) => [s.where, s.ms])).toEqual([
      ['test/e2e/x.test.ts:2', 1_000],
      ['test/e2e/x.test.ts:3', 12_500],
      ['test/e2e/x.test.ts:4', 100],
      ['test/e2e/x.test.ts:5', 50],
      ['test/e2e/x.test.ts:6', undefined],
    ]);
    expect(literalTotal(sleeps)).toBe(13_650);
  });
});

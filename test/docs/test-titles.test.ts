import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredTests, referenceMatches, showPattern } from './test-titles.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const file = 'test/docs/fixtures/nesting.fixture.ts';
const declared = declaredTests(root, file);

describe('declaredTests', () => {
  it('reads each test with the describe titles around it, computed parts as wildcards', () => {
    expect(declared.map((t) => t.chain.map(showPattern).join(' > '))).toEqual([
      'outer > plain',
      'outer > inner > with … parts',
      'outer > inner > …: each row',
      'outer > inner > skipped, still declared',
      'outer > after the inner block',
      'top level …',
    ]);
  });

  it('matches a reference by its last titles, with wildcards filled in, and nothing else', () => {
    const ref = (titles: string[]) => declared.some((t) => referenceMatches({ file, titles }, t));
    expect(ref(['plain'])).toBe(true);
    expect(ref(['outer', 'plain'])).toBe(true);
    expect(ref(['inner', 'with 3 parts'])).toBe(true);
    expect(ref(['outer', 'inner', 'a: each row'])).toBe(true);
    expect(ref(['top level x'])).toBe(true);
    expect(ref(['inner', 'plain'])).toBe(false);
    expect(ref(['after the inner'])).toBe(false);
    expect(ref(['outer', 'inner', 'after the inner block'])).toBe(false);
    expect(declared.some((t) => referenceMatches({ file: 'test/other.test.ts', titles: ['plain'] }, t))).toBe(false);
  });
});

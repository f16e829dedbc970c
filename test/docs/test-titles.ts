import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// The tests a test file declares, read from its syntax tree (TypeScript's own
// parser, not a regular expression): each it()/test() with the titles of the
// describe() blocks around it. Titles that are computed in part (a template
// literal with ${...}, an it.each title with $name or %s) keep those parts as
// wildcards, so a reference may name the test as it runs.

export interface DeclaredTest {
  /** Path from the repository root, e.g. "test/e2e/signals.test.ts". */
  file: string;
  /** describe titles, outermost first, then the test's own title. */
  chain: TitlePattern[];
}

/** A title: literal text with wildcards where it is computed at run time. */
export type TitlePattern = Array<{ text: string } | { wildcard: true }>;

const TEST_CALLS = new Set(['it', 'test']);
const SUITE_CALLS = new Set(['describe', 'suite']);
const MODIFIERS = new Set(['skip', 'only', 'todo', 'concurrent', 'sequential', 'fails', 'skipIf', 'runIf', 'each', 'for']);

export function declaredTests(root: string, file: string): DeclaredTest[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: DeclaredTest[] = [];
  const visit = (node: ts.Node, suites: TitlePattern[]): void => {
    if (ts.isCallExpression(node)) {
      const kind = callKind(node.expression);
      const title = node.arguments[0] && titleOf(node.arguments[0]);
      if (kind && title) {
        if (kind === 'test') out.push({ file, chain: [...suites, title] });
        // The body of a describe holds the suite's tests; a test's body holds none.
        const inner = kind === 'suite' ? [...suites, title] : suites;
        for (const arg of node.arguments.slice(1)) visit(arg, inner);
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, suites));
  };
  visit(source, []);
  return out;
}

/** it / it.skip / it.each(rows) / describe.only ...: which kind of call this callee makes. */
function callKind(callee: ts.Expression): 'test' | 'suite' | undefined {
  let e: ts.Expression = callee;
  for (;;) {
    if (ts.isCallExpression(e))
      e = e.expression; // it.each(rows)(title, fn)
    else if (ts.isPropertyAccessExpression(e) && MODIFIERS.has(e.name.text)) e = e.expression;
    else break;
  }
  if (!ts.isIdentifier(e)) return undefined;
  if (TEST_CALLS.has(e.text)) return 'test';
  if (SUITE_CALLS.has(e.text)) return 'suite';
  return undefined;
}

// vitest's title placeholders: $name, $0, %s, %d, %i, %f, %j, %o, %#, %%.
const PLACEHOLDER = /\$[A-Za-z0-9_.]+|%[sdifjo#]/g;

function titleOf(node: ts.Node): TitlePattern | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return withPlaceholders(node.text);
  if (ts.isTemplateExpression(node)) {
    const parts: TitlePattern = [...withPlaceholders(node.head.text)];
    for (const span of node.templateSpans) parts.push({ wildcard: true }, ...withPlaceholders(span.literal.text));
    return parts;
  }
  return undefined;
}

function withPlaceholders(text: string): TitlePattern {
  const parts: TitlePattern = [];
  let at = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index > at) parts.push({ text: text.slice(at, m.index) });
    parts.push({ wildcard: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

export function patternMatches(pattern: TitlePattern, title: string): boolean {
  const re = pattern.map((p) => ('wildcard' in p ? '.+?' : p.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${re}$`, 's').test(title);
}

/** A title as a reader sees it, wildcards shown as … */
export function showPattern(pattern: TitlePattern): string {
  return pattern.map((p) => ('wildcard' in p ? '…' : p.text)).join('');
}

/**
 * Whether a reference "file > a > b" names a declared test: the file is the
 * test's, and the titles after it are the last ones of the test's chain
 * (its own title, optionally with describe titles before it).
 */
export function referenceMatches(reference: { file: string; titles: string[] }, test: DeclaredTest): boolean {
  if (reference.file !== test.file || reference.titles.length === 0 || reference.titles.length > test.chain.length) return false;
  const tail = test.chain.slice(test.chain.length - reference.titles.length);
  return tail.every((pattern, i) => patternMatches(pattern, reference.titles[i]!));
}

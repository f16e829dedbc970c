import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../tools/cycles/imports.js';

// Issue 41's report pipeline, read from the syntax tree of src/: each
// property that "one place does it" is checked by finding every place that
// does it, so a second writer fails here whatever it is called.

const root = new URL('../../', import.meta.url);
const rootPath = fileURLToPath(root);
const files = sourceFiles(rootPath).filter((f) => f.startsWith('src/'));

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(new URL(file, root), 'utf8'), ts.ScriptTarget.Latest, true);
}

function where(source: ts.SourceFile, node: ts.Node): string {
  return `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
}

/** The name a property node names, identifier or string alike; undefined for a computed one. */
function propertyName(name: ts.Node | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

/**
 * Every place in src/ that writes the property `name` of a value: a key of an
 * object literal (`{ name: x }`, `{ name }`), an assignment to it (`o.name =`,
 * `o['name'] =`, `o.name ??=`) or a delete. Types (interface members) are not
 * writes, and neither is reading it.
 */
function propertyWriters(name: string): string[] {
  const out: string[] = [];
  for (const file of files) {
    const source = parse(file);
    const visit = (node: ts.Node): void => {
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && propertyName(node.name) === name) out.push(where(source, node));
      if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
        const left = node.left;
        if (ts.isPropertyAccessExpression(left) && left.name.text === name) out.push(where(source, node));
        if (ts.isElementAccessExpression(left) && propertyName(left.argumentExpression) === name) out.push(where(source, node));
      }
      if (ts.isDeleteExpression(node)) {
        const target = node.expression;
        if (ts.isPropertyAccessExpression(target) && target.name.text === name) out.push(where(source, node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe('the report pipeline (issue 41)', () => {
  it('isHidden is written once: by the report decorate pass, from settings.hiddenDevices', () => {
    const writers = propertyWriters('isHidden');
    expect(writers.map((w) => w.replace(/:\d+$/, ''))).toEqual(['src/report/decorate.ts', 'src/report/decorate.ts']);
    const decorate = readFileSync(new URL('src/report/decorate.ts', root), 'utf8');
    expect(decorate).toMatch(/const isHidden = settings\.hiddenDevices\.includes\(info\.udid\)/);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// The fixed sleeps of the end-to-end tests (issue 41): how long test/e2e
// waits out in real time whatever happens, read from the syntax tree.
//
// What counts: an awaited `sleep(N)` (test/support/wait.ts), an awaited
// `new Promise((r) => setTimeout(r, N))` and an awaited `setTimeout(N)` of
// node:timers/promises, where N is a number the file fixes: numeric literals
// and the file's own `const X = 6_000`, with + - * /. Each call counts once
// as written, so a poll interval inside a wait loop counts once and a sleep
// in it.each counts once. A duration computed at run time (a deadline minus
// Date.now(), an agent's own figure) is not literal: it is listed apart,
// and not summed.

export interface Sleep {
  /** Path from the repository root and line, e.g. "test/e2e/run.test.ts:26". */
  where: string;
  /** The argument as written. */
  text: string;
  /** Milliseconds, or undefined when computed at run time. */
  ms: number | undefined;
}

export function e2eSleeps(root: string, dir = 'test/e2e'): Sleep[] {
  const files = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .sort();
  return files.flatMap((f) => sleepsIn(root, join(dir, f)));
}

function sleepsIn(root: string, file: string): Sleep[] {
  const path = join(root, file);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const consts = new Map<string, ts.Expression>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);
  }
  const fold = (e: ts.Expression, depth = 0): number | undefined => {
    if (depth > 8) return undefined;
    if (ts.isNumericLiteral(e)) return Number(e.text);
    if (ts.isParenthesizedExpression(e)) return fold(e.expression, depth + 1);
    if (ts.isIdentifier(e)) {
      const init = consts.get(e.text);
      return init ? fold(init, depth + 1) : undefined;
    }
    if (ts.isBinaryExpression(e)) {
      const a = fold(e.left, depth + 1);
      const b = fold(e.right, depth + 1);
      if (a === undefined || b === undefined) return undefined;
      switch (e.operatorToken.kind) {
        case ts.SyntaxKind.PlusToken:
          return a + b;
        case ts.SyntaxKind.MinusToken:
          return a - b;
        case ts.SyntaxKind.AsteriskToken:
          return a * b;
        case ts.SyntaxKind.SlashToken:
          return a / b;
        default:
          return undefined;
      }
    }
    return undefined;
  };
  const out: Sleep[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAwaitExpression(node)) {
      const arg = durationOf(node.expression);
      if (arg) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        out.push({ where: `${relative(root, path)}:${line}`, text: arg.getText(source), ms: fold(arg) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The duration argument of `sleep(N)`, `setTimeout(N)` or `new Promise((r) => setTimeout(r, N))`. */
function durationOf(e: ts.Expression): ts.Expression | undefined {
  if (ts.isCallExpression(e) && ts.isIdentifier(e.expression)) {
    if (e.expression.text === 'sleep' && e.arguments.length === 1) return e.arguments[0];
    if (e.expression.text === 'setTimeout' && e.arguments.length === 1) return e.arguments[0];
  }
  if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'Promise') {
    const executor = e.arguments?.[0];
    if (!executor || !(ts.isArrowFunction(executor) || ts.isFunctionExpression(executor))) return undefined;
    const resolve = executor.parameters[0]?.name;
    if (!resolve || !ts.isIdentifier(resolve)) return undefined;
    // The body is the setTimeout call itself, or a block of that one statement.
    let body: ts.Node = executor.body;
    if (ts.isBlock(body) && body.statements.length === 1) {
      const only = body.statements[0]!;
      body = ts.isExpressionStatement(only) ? only.expression : only;
    }
    if (
      ts.isCallExpression(body) &&
      ts.isIdentifier(body.expression) &&
      body.expression.text === 'setTimeout' &&
      body.arguments.length === 2 &&
      ts.isIdentifier(body.arguments[0]!) &&
      body.arguments[0].text === resolve.text
    )
      return body.arguments[1];
  }
  return undefined;
}

/** Milliseconds of literal sleeps in total. */
export function literalTotal(sleeps: Sleep[]): number {
  return sleeps.reduce((sum, s) => sum + (s.ms ?? 0), 0);
}

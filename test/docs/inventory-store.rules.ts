import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { callersOf, srcProgram } from './src-program.js';

const rootPath = fileURLToPath(new URL('../../', import.meta.url));
const program = srcProgram();

// Issue 62's "one store per fact": a phone's last inventory (DeviceInfo, what
// it answered) is written once, in the readings (src/devices/readings.ts),
// by the source that asked; whoever still reports a phone nothing reads owes
// "this device, why, until when" in the presence ledger, and no facet holds
// an inventory. Read with the type checker: a type holds an inventory when
// DeviceInfo is in it, through its properties, unions and type arguments
// (Map, array), but not through a class instance or a function (a reference
// to another store, or code).

const checker = program.getTypeChecker();
const typesFile = `${rootPath}src/cloud/types.ts`;

function holdsInventory(type: ts.Type, seen = new Set<ts.Type>()): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol?.name === 'DeviceInfo' && symbol.declarations?.some((d) => d.getSourceFile().fileName === typesFile)) return true;
  if (type.isUnionOrIntersection()) return type.types.some((t) => holdsInventory(t, seen));
  if (symbol && symbol.flags & ts.SymbolFlags.Class) return false;
  if (type.getCallSignatures().length > 0) return false;
  if (checker.getTypeArguments(type as ts.TypeReference).some((t) => holdsInventory(t, seen))) return true;
  if (!(type.flags & ts.TypeFlags.Object)) return false;
  return type.getProperties().some((p) => {
    const at = p.valueDeclaration ?? p.declarations?.[0];
    return at !== undefined && holdsInventory(checker.getTypeOfSymbolAtLocation(p, at), seen);
  });
}

/** Each node of src/ a visitor picks, with where it is. */
function inSrc<T extends ts.Node>(pick: (node: ts.Node) => node is T): Array<{ node: T; at: string }> {
  const found: Array<{ node: T; at: string }> = [];
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(`${rootPath}src/`)) continue;
    const visit = (node: ts.Node): void => {
      if (pick(node))
        found.push({ node, at: `${source.fileName.slice(rootPath.length)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}` });
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

const isFacetKeyCall = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'facetKey';

describe("a phone's last inventory: one store, one writer (issue 62)", () => {
  it('no facet holds an inventory', () => {
    const keys = inSrc(isFacetKeyCall).filter(({ at }) => !at.startsWith('src/devices/facet.ts'));
    expect(keys.length).toBeGreaterThan(10);
    const holding = keys.filter(({ node }) => {
      // FacetKey<T> carries T in its `_type` member, (value: T) => void.
      const carrier = checker.getTypeAtLocation(node).getProperty('_type')!;
      const signature = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(carrier, node)).getCallSignatures()[0]!;
      return holdsInventory(checker.getTypeOfSymbolAtLocation(signature.parameters[0]!, node));
    });
    expect(holding.map(({ node, at }) => `${at}: ${node.getText()}`)).toEqual([]);
  });

  it('the presence ledger holds devices owed, no inventory', () => {
    const ledger = program.getSourceFile(`${rootPath}src/devices/presence.ts`)!;
    const entry = ledger.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'PresenceEntry')!;
    expect(holdsInventory(checker.getTypeAtLocation(entry))).toBe(false);
  });

  it("the fields of src/ that hold an inventory: the one store of them, and the report's own record of what it sent", () => {
    const fields = inSrc(ts.isPropertyDeclaration).filter(({ node }) => holdsInventory(checker.getTypeAtLocation(node)));
    expect(fields.map(({ node, at }) => `${at.split(':')[0]} ${node.name.getText()}`).sort()).toEqual([
      // The readings: each phone's last inventory (its last answer), and a first inventory's property dump until an answer, by record key.
      'src/devices/readings.ts answers',
      'src/devices/readings.ts dumps',
      // The cloud's last word on each device (the record it holds), in the timeline.
      'src/devices/timeline.ts told',
      // The report: the devices of its last body (the views' rows), and the UNPLUGGED records it owes.
      'src/report/run.ts last',
      'src/report/unplugged.ts pending',
    ]);
  });

  it("the cloud's last word: one store, the timeline's, written by the report's UNPLUGGED ledger only", () => {
    const callers = callersOf('src/devices/timeline.ts', ['delivered', 'seed']);
    expect(Object.fromEntries([...callers].map(([file, calls]) => [file, calls.sort()]))).toEqual({ 'src/report/unplugged.ts': ['delivered', 'seed'] });
  });

  it('the one store is written in one place, by the source that asked: Readings.keep, through answered and said', () => {
    const readings = `${rootPath}src/devices/readings.ts`;
    const writes = inSrc(
      (node): node is ts.CallExpression =>
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ['set', 'delete', 'clear'].includes(node.expression.name.text) &&
        ts.isPropertyAccessExpression(node.expression.expression) &&
        ['answers', 'dumps'].includes(node.expression.expression.name.text) &&
        node.getSourceFile().fileName === readings,
    );
    const methodOf = (node: ts.Node): string => {
      for (let at: ts.Node | undefined = node; at; at = at.parent) if (ts.isMethodDeclaration(at)) return at.name.getText();
      return '';
    };
    // Kept by keep (an answer drops the dump before it), a dump dropped with its record, an answer past a lab's worth of gone keys: nothing else touches them.
    const what = (node: ts.CallExpression) => {
      const call = node.expression as ts.PropertyAccessExpression;
      return `${methodOf(node)} ${(call.expression as ts.PropertyAccessExpression).name.text}.${call.name.text}`;
    };
    expect(writes.map(({ node }) => what(node)).sort()).toEqual([
      'close dumps.delete',
      'keep answers.delete',
      'keep answers.set',
      'keep dumps.delete',
      'keep dumps.set',
      'prune answers.delete',
    ]);
    const keeps = inSrc(
      (node): node is ts.CallExpression => ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'keep',
    )
      .filter(
        ({ node }) =>
          checker.getSymbolAtLocation((node.expression as ts.PropertyAccessExpression).name)?.declarations?.[0]?.getSourceFile().fileName === readings,
      )
      .map(({ node }) => methodOf(node));
    expect(keeps.sort()).toEqual(['answered', 'said']);
    const callers = callersOf('src/devices/readings.ts', ['answered', 'said']);
    expect([...callers.keys()].filter((file) => !file.startsWith('src/platforms/'))).toEqual([]);
    expect([...callers.keys()].sort()).toEqual(['src/platforms/android/inventory/runner.ts', 'src/platforms/ios/source.ts']);
  });
});

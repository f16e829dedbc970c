import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { srcProgram } from './src-program.js';

// docs/design/architecture.md, rule 11: a feature's per-device state is its
// own. Every `registry.facet(KEY)` in src/ is followed, with the type
// checker, to the `facetKey` declaration of KEY: a key declared in a
// feature's folder (src/features/NAME/) is reached only from files of that
// folder, so that only its code writes it; what one feature tells another
// is a fact declared in src/devices/. A KEY the checker cannot follow to its
// declaration fails too.

const root = fileURLToPath(new URL('../../', import.meta.url));
const folderOf = (file: string): string | undefined => /^src\/features\/[\w-]+\//.exec(file)?.[0];

function reaches(): Array<{ at: string; key: string; declaredIn: string | undefined }> {
  const program = srcProgram();
  const checker = program.getTypeChecker();
  const registry = `${root}src/devices/registry.ts`;
  const out: Array<{ at: string; key: string; declaredIn: string | undefined }> = [];
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(`${root}src/`)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'facet') {
        const method = checker.getSymbolAtLocation(node.expression.name)?.declarations?.[0];
        const arg = node.arguments[0];
        if (method?.getSourceFile().fileName === registry && arg) {
          let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(arg) ? arg.name : arg);
          if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
          const declaration = symbol?.declarations?.[0];
          const isKey =
            declaration && ts.isVariableDeclaration(declaration) && declaration.initializer && /^facetKey\b/.test(declaration.initializer.getText());
          const at = `${source.fileName.slice(root.length)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
          out.push({ at, key: arg.getText(), declaredIn: isKey ? declaration.getSourceFile().fileName.slice(root.length) : undefined });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe("11. a feature's facets are its own", () => {
  it("every registry.facet(KEY) is followed to KEY's facetKey, and a feature's key is reached only from its own folder", () => {
    const found = reaches();
    expect(found.length).toBeGreaterThan(15);
    expect(found.filter((f) => f.declaredIn === undefined).map((f) => `${f.at}: ${f.key}`)).toEqual([]);
    const foreign = found.filter((f) => {
      const owner = f.declaredIn && folderOf(f.declaredIn);
      return owner !== undefined && !f.at.startsWith(owner);
    });
    expect(foreign.map((f) => `${f.at} reaches ${f.key} of ${f.declaredIn}`)).toEqual([]);
  });
});

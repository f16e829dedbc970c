import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { srcProgram } from './src-program.js';

// docs/design/architecture.md, rule 10: each feature's decision
// (src/features/*/policy.ts) is pure, its inputs values only: the booking
// gate's verdict is worked out by the runner before it is called, never a
// closure, which could do I/O (ask the cloud) from inside it. This reads
// every parameter of the policies' exported functions and of their exported
// classes' public methods, as TypeScript types them, down to the fields of
// the project's own types, and fails on anything callable.

const root = fileURLToPath(new URL('../../', import.meta.url));
const policies = readdirSync(`${root}src/features`, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `${root}src/features/${e.name}/policy.ts`)
  .filter((f) => ts.sys.fileExists(f));

function callableInputs(): string[] {
  // The one program over src/ (src-program.ts): the policies are in it, typed as tsconfig.json types them.
  const program = srcProgram();
  const checker = program.getTypeChecker();
  const ours = (t: ts.Type): boolean => (t.getSymbol()?.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(`${root}src/`));
  const callable = (type: ts.Type, where: string, depth: number, seen: Set<ts.Type>): string[] => {
    if (seen.has(type)) return [];
    seen.add(type);
    if (type.isUnionOrIntersection()) return type.types.flatMap((t) => callable(t, where, depth, seen));
    if (type.getCallSignatures().length > 0) return [where];
    if (depth === 0 || !(type.flags & ts.TypeFlags.Object)) return [];
    // A library container (an array, a Map): what it holds, not its methods.
    if (!ours(type)) {
      const args = (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference ? checker.getTypeArguments(type as ts.TypeReference) : [];
      return args.flatMap((t, i) => callable(t, `${where}<${i}>`, depth - 1, seen));
    }
    return checker.getPropertiesOfType(type).flatMap((p) => {
      const decl = p.valueDeclaration ?? p.declarations?.[0];
      return decl ? callable(checker.getTypeOfSymbolAtLocation(p, decl), `${where}.${p.name}`, depth - 1, seen) : [];
    });
  };
  const ofParameters = (params: readonly ts.ParameterDeclaration[], where: string): string[] =>
    params.flatMap((p) => callable(checker.getTypeAtLocation(p), `${where}(${p.name.getText()})`, 4, new Set()));
  const found: string[] = [];
  for (const file of policies) {
    const source = program.getSourceFile(file)!;
    const name = file.slice(root.length);
    for (const s of source.statements) {
      const exported = ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) continue;
      if (ts.isFunctionDeclaration(s) && s.name) found.push(...ofParameters(s.parameters, `${name} ${s.name.text}`));
      if (ts.isClassDeclaration(s) && s.name) {
        for (const m of s.members) {
          const hidden = ts.getCombinedModifierFlags(m) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected);
          if (hidden || !(ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m))) continue;
          found.push(...ofParameters(m.parameters, `${name} ${s.name.text}.${m.name?.getText() ?? 'constructor'}`));
        }
      }
    }
  }
  return found;
}

describe("10. the features' decisions", () => {
  it('take values only: no parameter or field of their input is callable', () => {
    expect(policies.length).toBeGreaterThanOrEqual(3);
    expect(callableInputs()).toEqual([]);
  });
});

// One type-checked program over src/, built once: the rules that read the
// whole of src/ with TypeScript's checker (architecture, report-pipeline
// and decision-inputs, each a `.rules.ts` file) share it, and
// building it costs seconds. They run as one test file (src-rules.test.ts),
// so one worker builds it and the others never load TypeScript for it. Who
// calls a file's methods, as the checker resolves them, is read from it here
// for the rules that ask it (who writes a record, who writes a reading).
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { compilerOptions, sourceFiles } from '../../tools/cycles/imports.js';

const rootPath = fileURLToPath(new URL('../../', import.meta.url));
let program: ts.Program | undefined;

/** Every file of src/, checked as tsconfig.json checks it. */
export function srcProgram(): ts.Program {
  program ??= ts.createProgram(
    sourceFiles(rootPath)
      .filter((f) => f.startsWith('src/'))
      .map((f) => rootPath + f),
    compilerOptions(rootPath),
  );
  return program;
}

/** Call sites of the methods `methods` that `file` declares, file by file, as TypeScript resolves them; the file's own calls are not counted. */
export function callersOf(file: string, methods: readonly string[]): Map<string, string[]> {
  const program = srcProgram();
  const checker = program.getTypeChecker();
  const declaring = rootPath + file;
  const found = new Map<string, string[]>();
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(rootPath + 'src/') || source.fileName === declaring) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && methods.includes(node.expression.name.text)) {
        const declaration = checker.getSymbolAtLocation(node.expression.name)?.declarations?.[0];
        if (declaration?.getSourceFile().fileName === declaring) {
          const file = source.fileName.slice(rootPath.length);
          found.set(file, [...(found.get(file) ?? []), node.expression.name.text]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

// One type-checked program over src/, built once: the rules that read the
// whole of src/ with TypeScript's checker (architecture, report-pipeline,
// facet-writers and decision-inputs, each a `.rules.ts` file) share it, and
// building it costs seconds. They run as one test file (src-rules.test.ts),
// so one worker builds it and the others never load TypeScript for it.
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

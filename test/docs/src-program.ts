// One type-checked program over src/, built once per test worker: the
// architecture, report-pipeline and facet-writers tests each read the whole
// of src/ with TypeScript's checker, and building it costs seconds (three
// times that when each built its own). The unit tier shares a worker's
// module cache (vitest.config.ts: isolate false), so this module's program
// is built by the first file that asks and reused by the others.
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

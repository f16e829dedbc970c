// Reads the import edges of src/ with the TypeScript compiler's own scanner
// and module resolution, so that an edge is exactly what tsc resolves: type-
// only imports, re-exports, `import('...')` types and dynamic imports count
// (a type-only back edge is a cycle for a reader as much as any other).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import type { ImportEdge } from './graph.js';

/** The .ts files under `dir` (relative to `root`), as repository-relative paths with forward slashes. */
export function sourceFiles(root: string, dir = 'src'): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => toRepoPath(root, join(e.parentPath, e.name)))
    .sort();
}

/** The compiler options of root/tsconfig.json, which decide how a specifier resolves. */
export function compilerOptions(root: string): ts.CompilerOptions {
  const file = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(file, (f) => ts.sys.readFile(f));
  if (read.error) throw new Error(`cannot read ${file}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, file).options;
}

/** Every import from a file of `files` to a file under `dir`, resolved as tsc resolves it. */
export function importEdges(root: string, files: readonly string[], options: ts.CompilerOptions, dir = 'src'): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  for (const from of files) {
    const containing = join(root, from);
    const { importedFiles } = ts.preProcessFile(readFileSync(containing, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      // The project is ES modules throughout (package.json "type": "module").
      const resolved = ts.resolveModuleName(fileName, containing, options, ts.sys, cache, undefined, ts.ModuleKind.ESNext).resolvedModule;
      if (!resolved) continue;
      // Packages and node: builtins resolve outside src/ and drop out here.
      const to = toRepoPath(root, resolved.resolvedFileName);
      if (to.startsWith(`${dir}/`)) edges.push({ from, to });
    }
  }
  return edges;
}

function toRepoPath(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}

// The cycle check over a source tree: reads its imports, finds the folder
// cycles and the cycles through each contract file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cyclicComponents, folderCycles, type ImportEdge, shortestCycleThrough } from './graph.js';
import { compilerOptions, importEdges, sourceFiles } from './imports.js';
import type { ContractCycle, Findings } from './report.js';

/**
 * Files that other modules build on and that must import none of them back:
 * the probe contract (issue 22: its type-only import of the assembler made a
 * 22-file circle).
 */
export const CONTRACTS: readonly string[] = ['src/platforms/android/inventory/probes/types.ts'];

/** The tree cannot be checked as given: the message says what to change. */
export class SetupError extends Error {}

export function findCycles(root: string, contracts: readonly string[] = CONTRACTS): Findings {
  if (!existsSync(join(root, 'src')) || !existsSync(join(root, 'tsconfig.json'))) {
    throw new SetupError(`${root} has no src/ or no tsconfig.json: run the check from the repository root or pass the root as its argument`);
  }
  for (const contract of contracts) {
    if (!existsSync(join(root, contract))) {
      throw new SetupError(`the contract file ${contract} does not exist: update CONTRACTS in tools/cycles/check.ts to where it moved`);
    }
  }
  const files = sourceFiles(root);
  const edges = importEdges(root, files, compilerOptions(root));
  const { cycles, more } = folderCycles(edges);
  return { folderCycles: cycles, more, contractCycles: contractCycles(edges, contracts), files: files.length };
}

function contractCycles(edges: readonly ImportEdge[], contracts: readonly string[]): ContractCycle[] {
  const successors = new Map<string, string[]>();
  for (const e of edges) {
    let list = successors.get(e.from);
    if (!list) successors.set(e.from, (list = []));
    list.push(e.to);
  }
  const components = cyclicComponents([...successors.keys()].sort(), (file) => successors.get(file) ?? []);
  const found: ContractCycle[] = [];
  for (const contract of contracts) {
    const path = shortestCycleThrough(contract, edges);
    if (path) found.push({ contract, path, circle: components.find((c) => c.includes(contract))?.length ?? 1 });
  }
  return found;
}

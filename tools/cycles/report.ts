// The text the cycle check prints: for each folder cycle the edge to cut and
// the file imports that make it, for each contract the circle through it.
import type { FolderCycle, FolderEdge } from './graph.js';

export interface ContractCycle {
  contract: string;
  /** A shortest cycle through the contract, starting at it. */
  path: readonly string[];
  /** How many files share the contract's circle (its strongly connected component). */
  circle: number;
}

export interface Findings {
  folderCycles: readonly FolderCycle[];
  /** More folder cycles exist than were enumerated. */
  more: boolean;
  contractCycles: readonly ContractCycle[];
  /** How many files of src/ were read. */
  files: number;
}

/** Shown imports of a closing edge; the others are counted. */
const SHOWN_IMPORTS = 5;

export function formatFindings(f: Findings): string {
  if (f.folderCycles.length === 0 && f.contractCycles.length === 0) {
    return `import cycles: none between the folders of src/ and none through a contract (${f.files} files)\n`;
  }
  const out: string[] = [];
  if (f.folderCycles.length > 0) {
    out.push(
      `import cycles between folders of src/: ${f.folderCycles.length}${f.more ? ' (and more, not listed)' : ''}. ` +
        'Each is closed by the edge with the fewest imports (marked ⇢): move what those files import, or invert the dependency.',
    );
    f.folderCycles.forEach((cycle, i) => {
      out.push('', `${i + 1}. ${[...cycle.folders, cycle.folders[0]].join(' → ').replace(/ → (\S+)$/, ' ⇢ $1')}`);
      for (const edge of cycle.edges) out.push(...edgeLines(edge, edge === cycle.closing));
    });
  }
  for (const c of f.contractCycles) {
    out.push(
      '',
      `import cycle through the contract ${c.contract} (${c.circle} files in its circle): a contract must not import its consumers; ` +
        'move what it imports from them into the contract or below it. Shortest:',
      `  ${[...c.path, c.path[0]].join('\n    → ')}`,
    );
  }
  return out.join('\n') + '\n';
}

function edgeLines(edge: FolderEdge, closing: boolean): string[] {
  const n = edge.imports.length;
  const head = `   ${edge.from} ${closing ? '⇢' : '→'} ${edge.to}: ${n} import${n === 1 ? '' : 's'}`;
  const shown = closing ? edge.imports.slice(0, SHOWN_IMPORTS) : edge.imports.slice(0, 1);
  const lines = [head, ...shown.map((e) => `      ${e.from} imports ${e.to}`)];
  if (n > shown.length) lines.push(`      … and ${n - shown.length} more`);
  return lines;
}

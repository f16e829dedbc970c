// Import cycles, computed on plain data: file-to-file import edges in, the
// cycles between folders of src/ and through named contract files out. No
// I/O here; tools/cycles/imports.ts reads the edges from the source tree.

/** One import: `from` imports `to`, both paths relative to the repository root. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** An edge between two folders, with every file import that makes it. */
export interface FolderEdge {
  from: string;
  to: string;
  imports: readonly ImportEdge[];
}

/**
 * One elementary cycle between folders. `edges` run in order and end with
 * `closing`, the edge with the fewest file imports (the cheapest to cut).
 */
export interface FolderCycle {
  folders: readonly string[];
  edges: readonly FolderEdge[];
  closing: FolderEdge;
}

/**
 * The folder a file of src/ belongs to: the directory directly under src/,
 * except that each directory under src/platforms/ is a folder of its own (a
 * platform plugs in as one folder), and that a feature's settings fragment
 * (src/features/NAME/settings.ts) belongs to "config": it lives beside its
 * feature, but src/config/schema.ts composes it, so it may import only what
 * the config layer may. Files directly in src/ or src/platforms/ belong to
 * "src" and "platforms". Undefined for files outside src/.
 */
export function folderOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  if (parts.length === 2) return 'src';
  if (parts[1] === 'features' && parts.length === 4 && parts[3] === 'settings.ts') return 'config';
  if (parts[1] === 'platforms' && parts.length > 3) return `platforms/${parts[2]}`;
  return parts[1];
}

/** The folder graph of the import edges: from -> to -> the file imports, without edges inside a folder. */
function folderGraph(edges: readonly ImportEdge[]): Map<string, Map<string, ImportEdge[]>> {
  const graph = new Map<string, Map<string, ImportEdge[]>>();
  for (const edge of edges) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === undefined || to === undefined || from === to) continue;
    let targets = graph.get(from);
    if (!targets) graph.set(from, (targets = new Map<string, ImportEdge[]>()));
    let imports = targets.get(to);
    if (!imports) targets.set(to, (imports = []));
    imports.push(edge);
  }
  return graph;
}

type Successors = (node: string) => Iterable<string>;

/**
 * Strongly connected components (Tarjan), iteratively so that a long import
 * chain cannot overflow the stack. Only components with a cycle are returned:
 * more than one node, or one node that reaches itself.
 */
export function cyclicComponents(nodes: Iterable<string>, successors: Successors): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: Iterator<string> }> = [];
    const enter = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: successors(node)[Symbol.iterator]() });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const child = step.value;
        if (!index.has(child)) enter(child);
        else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = component.length === 1 && [...successors(frame.node)].includes(frame.node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  }
  return components;
}

/**
 * The elementary cycles among `nodes`, each listed once, starting at its
 * smallest node; at most `limit` of them, since a dense graph has
 * exponentially many (`more` says that some were left out).
 */
export function elementaryCycles(nodes: readonly string[], successors: Successors, limit: number): { cycles: string[][]; more: boolean } {
  const sorted = [...nodes].sort();
  const rank = new Map(sorted.map((n, i) => [n, i]));
  const cycles: string[][] = [];
  let more = false;
  for (const start of sorted) {
    const startRank = rank.get(start)!;
    const path = [start];
    const onPath = new Set(path);
    const walk = (node: string): boolean => {
      for (const next of [...successors(node)].sort()) {
        const r = rank.get(next);
        if (r === undefined || r < startRank) continue;
        if (next === start) {
          if (cycles.length === limit) {
            more = true;
            return false;
          }
          cycles.push([...path]);
        } else if (!onPath.has(next)) {
          path.push(next);
          onPath.add(next);
          const goOn = walk(next);
          path.pop();
          onPath.delete(next);
          if (!goOn) return false;
        }
      }
      return true;
    };
    if (!walk(start)) break;
  }
  return { cycles, more };
}

/** The folder cycles of the import edges, each rotated so that its cheapest edge closes it. */
export function folderCycles(edges: readonly ImportEdge[], limit = 100): { cycles: FolderCycle[]; more: boolean } {
  const graph = folderGraph(edges);
  const successors = (folder: string) => graph.get(folder)?.keys() ?? [];
  const cycles: FolderCycle[] = [];
  let more = false;
  for (const component of cyclicComponents([...graph.keys()].sort(), successors)) {
    const found = elementaryCycles(component, successors, limit - cycles.length);
    more ||= found.more;
    for (const folders of found.cycles) cycles.push(closedByCheapest(folders, graph));
  }
  return { cycles, more };
}

function closedByCheapest(folders: readonly string[], graph: Map<string, Map<string, ImportEdge[]>>): FolderCycle {
  const edges: FolderEdge[] = folders.map((from, i) => {
    const to = folders[(i + 1) % folders.length]!;
    return { from, to, imports: graph.get(from)!.get(to)! };
  });
  let cut = 0;
  edges.forEach((e, i) => {
    if (e.imports.length < edges[cut]!.imports.length) cut = i;
  });
  const rotated = [...edges.slice(cut + 1), ...edges.slice(0, cut + 1)];
  return { folders: rotated.map((e) => e.from), edges: rotated, closing: rotated[rotated.length - 1]! };
}

/**
 * A shortest cycle of file imports through `file` (breadth first, so the
 * one reported is the easiest to read), as the files in order starting at
 * `file`; undefined when no cycle runs through it.
 */
export function shortestCycleThrough(file: string, edges: readonly ImportEdge[]): string[] | undefined {
  const successors = new Map<string, string[]>();
  for (const e of edges) {
    let list = successors.get(e.from);
    if (!list) successors.set(e.from, (list = []));
    list.push(e.to);
  }
  const previous = new Map<string, string>();
  const queue = [file];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of [...(successors.get(node) ?? [])].sort()) {
      if (next === file) {
        const path = [node];
        for (let at = node; at !== file;) path.push((at = previous.get(at)!));
        return path.reverse();
      }
      if (previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return undefined;
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cyclicComponents, elementaryCycles, folderCycles, folderOf, type ImportEdge, shortestCycleThrough } from '../../../tools/cycles/graph.js';

const graphOf = (pairs: Array<[string, string]>) => {
  const m = new Map<string, string[]>();
  for (const [a, b] of pairs) m.set(a, [...(m.get(a) ?? []), b]);
  return (n: string) => m.get(n) ?? [];
};
const edge = (from: string, to: string): ImportEdge => ({ from, to });

describe('folderOf', () => {
  it('is the directory under src/, with each platform its own folder', () => {
    expect(folderOf('src/config/schema.ts')).toBe('config');
    expect(folderOf('src/platforms/android/inventory/probes/types.ts')).toBe('platforms/android');
    expect(folderOf('src/platforms/ios/watcher.ts')).toBe('platforms/ios');
    expect(folderOf('src/platforms/source.ts')).toBe('platforms');
    expect(folderOf('src/index.ts')).toBe('src');
    // A feature's settings fragment is composed by src/config/schema.ts: it is of the config layer.
    expect(folderOf('src/features/health/settings.ts')).toBe('config');
    expect(folderOf('src/features/health/rules.ts')).toBe('features');
    expect(folderOf('test/config/load.test.ts')).toBeUndefined();
  });
});

describe('cyclicComponents', () => {
  it('returns only the components with a cycle, a self-import included', () => {
    const succ = graphOf([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'e'],
      ['f', 'g'],
    ]);
    expect(cyclicComponents(['a', 'b', 'c', 'd', 'e', 'f', 'g'], succ)).toEqual([['e'], ['a', 'b', 'c']]);
  });

  it('finds a cycle at the end of a chain longer than the call stack', () => {
    const n = 200_000;
    const succ = (x: string) => {
      const i = Number(x);
      return i < n ? [String(i + 1)] : ['0'];
    };
    const [component] = cyclicComponents(['0'], succ);
    expect(component).toHaveLength(n + 1);
  });

  it('agrees with "a reaches b and b reaches a" on random graphs', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 })), { maxLength: 20 }), (pairs) => {
        const nodes = ['0', '1', '2', '3', '4', '5', '6', '7'];
        const succ = graphOf(pairs.map(([a, b]) => [String(a), String(b)]));
        const reach = (from: string) => {
          const seen = new Set<string>();
          const todo = [...succ(from)];
          while (todo.length) {
            const n = todo.pop()!;
            if (!seen.has(n)) {
              seen.add(n);
              todo.push(...succ(n));
            }
          }
          return seen;
        };
        const components = cyclicComponents(nodes, succ);
        for (const a of nodes) {
          const mine = components.find((c) => c.includes(a));
          expect(mine !== undefined, `node ${a}`).toBe(reach(a).has(a));
          for (const b of nodes) if (mine && a !== b) expect(mine.includes(b)).toBe(reach(a).has(b) && reach(b).has(a));
        }
      }),
    );
  });
});

describe('elementaryCycles', () => {
  it('lists each cycle once, from its smallest node', () => {
    const succ = graphOf([
      ['a', 'b'],
      ['b', 'a'],
      ['b', 'c'],
      ['c', 'a'],
    ]);
    expect(elementaryCycles(['a', 'b', 'c'], succ, 10)).toEqual({
      cycles: [
        ['a', 'b'],
        ['a', 'b', 'c'],
      ],
      more: false,
    });
  });

  it('stops at the limit and says there are more', () => {
    const all = ['a', 'b', 'c', 'd'];
    const succ = (n: string) => all.filter((m) => m !== n);
    const { cycles, more } = elementaryCycles(all, succ, 5);
    expect(cycles).toHaveLength(5);
    expect(more).toBe(true);
    expect(elementaryCycles(all, succ, 100).cycles).toHaveLength(20);
  });
});

describe('folderCycles', () => {
  it('ignores cycles inside a folder and closes a folder cycle with its edge of fewest imports', () => {
    const edges = [
      edge('src/a/x.ts', 'src/a/y.ts'),
      edge('src/a/y.ts', 'src/a/x.ts'),
      edge('src/a/x.ts', 'src/b/one.ts'),
      edge('src/a/y.ts', 'src/b/two.ts'),
      edge('src/b/one.ts', 'src/c/z.ts'),
      edge('src/c/z.ts', 'src/a/y.ts'),
      edge('src/c/z.ts', 'src/a/x.ts'),
      edge('src/b/two.ts', 'src/b/one.ts'),
    ];
    const { cycles, more } = folderCycles(edges);
    expect(more).toBe(false);
    expect(cycles).toHaveLength(1);
    const [cycle] = cycles;
    expect(cycle!.folders).toEqual(['c', 'a', 'b']);
    expect(cycle!.closing).toEqual({ from: 'b', to: 'c', imports: [edge('src/b/one.ts', 'src/c/z.ts')] });
    expect(cycle!.edges.map((e) => `${e.from}>${e.to}:${e.imports.length}`)).toEqual(['c>a:2', 'a>b:2', 'b>c:1']);
  });

  it('treats two platforms as two folders', () => {
    const { cycles } = folderCycles([
      edge('src/platforms/ios/a.ts', 'src/platforms/android/b.ts'),
      edge('src/platforms/android/b.ts', 'src/platforms/ios/c.ts'),
    ]);
    expect(cycles.map((c) => c.folders)).toEqual([['platforms/ios', 'platforms/android']]);
  });
});

describe('shortestCycleThrough', () => {
  it('finds the shortest of the cycles through a file, starting at it', () => {
    const edges = [edge('t', 'a'), edge('a', 'b'), edge('b', 'c'), edge('c', 't'), edge('a', 't'), edge('x', 'y')];
    expect(shortestCycleThrough('t', edges)).toEqual(['t', 'a']);
    expect(shortestCycleThrough('t', [edge('t', 't')])).toEqual(['t']);
    expect(shortestCycleThrough('b', edges)).toEqual(['b', 'c', 't', 'a']);
    expect(shortestCycleThrough('x', edges)).toBeUndefined();
  });

  it('of two shortest cycles, reports the one through the first file in path order', () => {
    const edges = [edge('t', 'b'), edge('t', 'a'), edge('b', 'c'), edge('a', 'c'), edge('c', 't')];
    expect(shortestCycleThrough('t', edges)).toEqual(['t', 'a', 'c']);
  });
});

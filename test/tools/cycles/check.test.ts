import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS, findCycles, SetupError } from '../../../tools/cycles/check.js';

// Each case is a small source tree written to a temporary directory and read
// by the real check: the TypeScript scanner and module resolution, with the
// project's compiler options. The trees are written here, beside what they
// test, rather than kept as .ts fixtures that tsc, the linter and the unused-
// code check would each have to be told to skip.
const TSCONFIG = JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src/**/*.ts'] });
const CONTRACT = CONTRACTS[0]!;

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cycles-'));
  writeFileSync(join(root, 'tsconfig.json'), TSCONFIG);
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  for (const [path, text] of Object.entries({ [CONTRACT]: 'export interface Probe { section: string }\n', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('findCycles', () => {
  it('finds nothing where folders import one way and cycles stay inside a folder', () => {
    const root = tree({
      'src/agent/a.ts':
        "import { b } from './b.js';\nimport { c } from '../config/c.js';\nimport { join } from 'node:path';\nexport const a = b + c + join('x');\n",
      'src/agent/b.ts': "import { a } from './a.js';\nexport const b = 1;\nexport const again = () => a;\n",
      'src/config/c.ts': 'export const c = 2;\n',
      'src/platforms/android/inventory/probes/battery.ts': "import type { Probe } from './types.js';\nexport const battery: Probe = { section: 'battery' };\n",
    });
    const found = findCycles(root);
    expect(found.folderCycles).toEqual([]);
    expect(found.contractCycles).toEqual([]);
    expect(found.files).toBe(5);
  });

  it('counts a type-only back edge, an import() type and a re-export as imports', () => {
    const root = tree({
      'src/agent/a.ts': "export { c } from '../config/c.js';\n",
      'src/config/c.ts': "import { join } from 'node:path';\nimport type { T } from '../timing/t.js';\nexport const c: T = join('x').length;\n",
      'src/timing/t.ts': "export type T = number;\nexport type A = typeof import('../agent/a.js');\n",
    });
    const [cycle, ...others] = findCycles(root).folderCycles;
    expect(others).toEqual([]);
    expect(cycle!.edges.map((e) => e.imports.map((i) => `${i.from} -> ${i.to}`)).flat()).toEqual([
      'src/config/c.ts -> src/timing/t.ts',
      'src/timing/t.ts -> src/agent/a.ts',
      'src/agent/a.ts -> src/config/c.ts',
    ]);
  });

  it('finds a cycle through the probe contract even inside one folder, with the size of its circle', () => {
    const root = tree({
      [CONTRACT]: "import type { Config } from '../assemble.js';\nexport interface Probe { config: Config }\n",
      'src/platforms/android/inventory/assemble.ts':
        "import { battery } from './probes/battery.js';\nexport interface Config { hidden: boolean }\nexport const all = [battery];\n",
      'src/platforms/android/inventory/probes/battery.ts': "import type { Probe } from './types.js';\nexport const battery = {} as Probe;\n",
    });
    const found = findCycles(root);
    expect(found.folderCycles).toEqual([]);
    expect(found.contractCycles).toEqual([
      { contract: CONTRACT, path: [CONTRACT, 'src/platforms/android/inventory/assemble.ts', 'src/platforms/android/inventory/probes/battery.ts'], circle: 3 },
    ]);
  });

  it('says which contract file is missing rather than passing without it', () => {
    const root = tree({});
    expect(() => findCycles(root, ['src/platforms/android/inventory/probes/contract.ts'])).toThrow(SetupError);
    expect(() => findCycles(root, ['src/platforms/android/inventory/probes/contract.ts'])).toThrow(/contract\.ts does not exist: update CONTRACTS/);
  });

  it('says where to run it from when the root has no src/', () => {
    expect(() => findCycles(mkdtempSync(join(tmpdir(), 'cycles-empty-')))).toThrow(/has no src\/ or no tsconfig.json: run the check from the repository root/);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../../tools/cycles/check.js';
import { main } from '../../../tools/cycles/cli.js';

// `npm run cycles` runs the compiled check (npm test builds dist/ first).
const CLI = resolve(fileURLToPath(import.meta.url), '../../../../dist/tools/cycles/main.js');

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cycles-main-'));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function run(root: string): { code: number; stdout: string; stderr: string } {
  const out = new PassThrough();
  const err = new PassThrough();
  const code = main([root], out, err);
  return { code, stdout: String(out.read() ?? ''), stderr: String(err.read() ?? '') };
}

const CYCLIC = {
  [CONTRACTS[0]!]: 'export interface Probe { section: string }\n',
  'src/status/metrics.ts': "import { stats } from '../agent/stats.js';\nexport const metrics = () => stats;\n",
  'src/agent/stats.ts': 'export const stats = 1;\n',
  'src/agent/agent.ts': "import { metrics } from '../status/metrics.js';\nimport { stats } from './stats.js';\nexport const agent = [metrics, stats];\n",
  'src/agent/health.ts': "import { metrics } from '../status/metrics.js';\nexport const health = metrics;\n",
};

describe('cycles CLI', () => {
  it('exits 1 and names the cycle, the edge to cut and the import that makes it', () => {
    const r = run(tree(CYCLIC));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('import cycles between folders of src/: 1.');
    expect(r.stderr).toContain('1. agent → status ⇢ agent');
    expect(r.stderr).toContain('   status ⇢ agent: 1 import\n      src/status/metrics.ts imports src/agent/stats.ts');
  });

  it('exits 0 on a tree without cycles and says how many files it read', () => {
    const { 'src/agent/agent.ts': _agent, 'src/agent/health.ts': _health, ...oneWay } = CYCLIC;
    const r = run(tree(oneWay));
    expect(r).toEqual({ code: 0, stdout: 'import cycles: none between the folders of src/ and none through a contract (3 files)\n', stderr: '' });
  });

  it('exits 2 with what to do when the contract file has moved', () => {
    const r = run(tree({ 'src/agent/stats.ts': 'export const stats = 1;\n' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cycles: the contract file ${CONTRACTS[0]} does not exist: update CONTRACTS in tools/cycles/check.ts to where it moved\n`);
  });

  it('runs as the compiled script npm runs, with its exit code', () => {
    const child = spawnSync(process.execPath, [CLI, tree(CYCLIC)], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(1);
    expect(child.stderr).toContain('1. agent → status ⇢ agent');
  });
});

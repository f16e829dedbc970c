import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Importing node:http as an ES module loads Node's bundled undici (about 5 MB
// of RSS), because the ESM view reads the WebSocket export. The agent's HTTP
// modules go through src/util/node-http.ts instead; this keeps it so, in a
// process of its own (vitest's own process has undici loaded already).

const dist = join(dirname(fileURLToPath(import.meta.url)), '../../dist/src');
const modules = ['cloud/http.js', 'cloud/network.js', 'status/server.js', 'cli/main.js', 'cli/doctor.js'].map((m) => pathToFileURL(join(dist, m)).href);

describe('node:http without undici', () => {
  it('the cloud client, the status server and the CLI load no undici', async () => {
    const script = `for (const m of ${JSON.stringify(modules)}) await import(m);
      console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual([]);
  });
});

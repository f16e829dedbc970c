import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// package.json's prepare script, run by sh as npm runs it, with tsc and node stubs that record their calls. npm ci builds
// dist/; npx device-agent in the checkout links it into npx's cache, which runs prepare again (npm_command=exec): a full
// tsc, half a minute of a first npx on a loaded host (issue 70) for a build npx never makes again after that one.

const prepare = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { prepare: string } }).scripts.prepare;

function calls(npmCommand: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'da-prepare-'));
  const log = join(dir, 'calls');
  for (const tool of ['tsc', 'node']) {
    writeFileSync(join(dir, tool), `#!/bin/sh\necho "${tool} $*" >> "${log}"\n`);
    chmodSync(join(dir, tool), 0o755);
  }
  execFileSync('/bin/sh', ['-c', prepare], { env: { PATH: `${dir}:/usr/bin:/bin`, npm_command: npmCommand } });
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

describe('the prepare script', () => {
  it.each(['ci', 'install'])('npm %s builds dist/ and checks the runtime', (command) => {
    expect(calls(command)).toEqual(['tsc -p tsconfig.json', 'node dist/packaging/node-runtime-cli.js installed', 'node dist/tools/optional-deps/main.js']);
  });

  it('npx (npm exec) linking the checkout builds nothing: it runs the build there is, as every later npx does', () => {
    expect(calls('exec')).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The deploy checks' shared shell library, run by bash as the checks run it:
// a command whose failure a check does not test must end the check with a
// FAIL line that names it. Stop 49's rollout check ended on a SIGPIPE without
// one, and nobody could tell which step broke.

const lib = resolve('test/deploy/lib.sh');
const dir = mkdtempSync(join(tmpdir(), 'deploy-lib-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(name: string, body: string): { status: number | null; stdout: string; stderr: string } {
  const script = join(dir, name);
  writeFileSync(
    script,
    ['set -euo pipefail', `here=${JSON.stringify(resolve('test/deploy'))}`, `. ${JSON.stringify(lib)}`, 'fail() { echo "FAIL: $*" >&2; exit 1; }', body].join(
      '\n',
    ) + '\n',
  );
  const run = spawnSync('bash', [script], { encoding: 'utf8', timeout: 10_000, env: { ...process.env, DEPLOY_WORK: dir } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('test/deploy/lib.sh', () => {
  it('ends a check on an untested failure with a FAIL line naming the line and the command', () => {
    // Line 5: set, here, the library and the check's fail come first.
    const run = check('untested.sh', "first=$(printf 'a\\nb\\n' | false)\necho not reached");
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain('not reached');
    expect(run.stderr).toBe("FAIL: line 5 of untested.sh: `first=$(printf 'a\\nb\\n' | false)` ended with status 1, which the check does not expect\n");
  });

  it('keeps quiet on failures a check tests', () => {
    const run = check('tested.sh', ['false || true', 'if false; then :; fi', 'printf x | has y && echo matched', '! false', 'echo done'].join('\n'));
    expect(run).toEqual({ status: 0, stdout: 'done\n', stderr: '' });
  });

  it('still lets a check fail with its own words', () => {
    const run = check('own.sh', 'printf x | has y || fail "no y in x"');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('FAIL: no y in x\n');
  });
});

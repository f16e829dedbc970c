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

  // packages.sh writes its verdicts; a check waits for the one it needs
  // (.ci/run builds the packages beside the e2e tier, long before the checks).
  describe('await_packages', () => {
    const verdicts = (name: string, built?: string, lintian?: string): string => {
      const at = join(dir, name);
      return [`mkdir -p ${at}`, built && `echo ${JSON.stringify(built)} > ${at}/built`, lintian && `echo ${JSON.stringify(lintian)} > ${at}/lintian`, '']
        .filter((l) => l !== undefined)
        .join('\n');
    };

    it('goes on once a verdict is ok', () => {
      const run = check(
        'ok.sh',
        `${verdicts('ok', 'ok', 'ok')}await_packages ${join(dir, 'ok')} built\nawait_packages ${join(dir, 'ok')} lintian\necho going on`,
      );
      expect(run).toEqual({ status: 0, stdout: 'going on\n', stderr: '' });
    });

    it('fails with the verdict when it is not ok', () => {
      const run = check(
        'bad.sh',
        `${verdicts('bad', 'ok', 'device-agent_1_amd64.deb: E: bad-thing')}await_packages ${join(dir, 'bad')} lintian\necho not reached`,
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toBe('FAIL: packages (lintian): device-agent_1_amd64.deb: E: bad-thing\n');
    });

    it('waits for a verdict still to come', () => {
      const at = join(dir, 'late');
      const run = check('late.sh', `mkdir -p ${at}\n(sleep 1; echo ok > ${at}/built) &\nawait_packages ${at} built "$!"\necho built`);
      expect(run).toEqual({ status: 0, stdout: 'built\n', stderr: '' });
    });

    it('fails, naming it, when the packages.sh it waits for ended without a verdict', () => {
      const at = join(dir, 'died');
      const run = check('died.sh', `mkdir -p ${at}\n(exit 3) &\nawait_packages ${at} built "$!"\necho not reached`);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/^FAIL: packages\.sh ended without its built verdict/);
    });
  });

  // The USB layer reports a phone off adb on its port only once adb's usb path placed it there (docs/design/trust.md):
  // the checks wait for that before adb drops the phone. wait_put is the bed's; here a stand-in says what it was asked.
  describe('wait_placed', () => {
    const bedOf = (label: string) =>
      [
        `metrics() { printf '%s\\n' '# HELP device_agent_device_info x' 'device_agent_device_info{udid="OTHER",usb="1-1.3"} 1' '${label}'; }`,
        'clock() { echo 1000; }',
        'n=0',
        'wait_put() { n=$((n + 1)); echo "asked since $1 for $2" >&2; printf \'{"receivedAt":%d}\\n\' $((1000 + 5000 * n)); }',
      ].join('\n');

    it("waits for the phone's port on /metrics, then for two reports listing it, the second after the first", () => {
      const run = check(
        'placed.sh',
        `${bedOf('device_agent_device_info{udid="PHONE",serial="127.0.0.1:5555",usb="1-1.3",hub=""} 1')}\nwait_placed PHONE 1-1.3 metrics clock 1\necho placed`,
      );
      expect(run).toEqual({
        status: 0,
        stdout: 'placed\n',
        stderr: "asked since 1000 for status(p, 'PHONE') === 'AVAILABLE'\nasked since 6001 for status(p, 'PHONE') === 'AVAILABLE'\n",
      });
    });

    it('gives up without asking for a report while /metrics has the phone on no port, or another port, or another phone there', () => {
      for (const label of ['device_agent_device_info{udid="PHONE",usb=""} 1', 'device_agent_device_info{udid="PHONE",usb="1-1.4"} 1', '']) {
        const run = check('unplaced.sh', `${bedOf(label)}\nwait_placed PHONE 1-1.3 metrics clock 1 || echo not placed`);
        expect(run).toEqual({ status: 0, stdout: 'not placed\n', stderr: '' });
      }
    });
  });

  it('still lets a check fail with its own words', () => {
    const run = check('own.sh', 'printf x | has y || fail "no y in x"');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('FAIL: no y in x\n');
  });
});

import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemTool } from '../support/system-tool.js';

// The playbook's own variables (docs/install/fleet.md's table) are checked
// before any host is reached. ansible-playbook runs the real
// deploy/ansible/rollout.yml; each host's "ssh" is a stand-in that notes it
// was run and answers as ssh does when nothing listens (exit 255, "Connection
// refused"), so Ansible counts the host unreachable and changes nothing.

const dir = mkdtempSync(join(tmpdir(), 'rollout-variables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Run = { code: number; out: string; reached: string[] };

/** One run of the rollout over lab-host-1, lab-host-10 and lab-host-2, with these extra variables (as `-e` gives them). */
function rollout(name: string, ...extra: string[]): Promise<Run> {
  const ssh = join(dir, `${name}.ssh`);
  const log = join(dir, `${name}.reached`);
  writeFileSync(ssh, `#!/bin/sh\necho "$@" >> '${log}'\necho 'ssh: connect to host port 22: Connection refused' >&2\nexit 255\n`);
  chmodSync(ssh, 0o755);
  const inventory = join(dir, `${name}.ini`);
  writeFileSync(inventory, `[device_agents]\nlab-host-1\nlab-host-10\nlab-host-2\n\n[device_agents:vars]\nansible_ssh_executable=${ssh}\n`);
  const args = [
    '-i',
    inventory,
    resolve('deploy/ansible/rollout.yml'),
    '-e',
    'device_agent_max_unreachable_percentage=100',
    ...extra.flatMap((e) => ['-e', e]),
  ];
  const env = { ...process.env, ANSIBLE_NOCOLOR: '1', ANSIBLE_LOCAL_TEMP: join(dir, `${name}.tmp`), ANSIBLE_RETRY_FILES_ENABLED: '0' };
  return new Promise((done) => {
    execFile(systemTool('ansible-playbook'), args, { env, timeout: 90_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const reached = existsSync(log) ? readFileSync(log, 'utf8') : '';
      done({
        code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
        out: stdout + stderr,
        reached: ['lab-host-1', 'lab-host-10', 'lab-host-2'].filter((h) => new RegExp(`\\b${h}\\b`).test(reached)),
      });
    });
  });
}

/** The summary's line of a host. */
const said = (run: Run, host: string) => new RegExp(`"${host}: ([^"]*)"`).exec(run.out)?.[1];

describe('deploy/ansible/rollout.yml: its own variables', () => {
  it('a wrong one stops the run before any host is reached, naming each wrong variable', async () => {
    const [batch, zero, failed, unknown, shape, tail, odd] = await Promise.all([
      rollout('batch', 'device_agent_batch=five'),
      rollout('zero', 'device_agent_batch=0', 'device_agent_max_unreachable_percentage=150'),
      rollout('failed', 'device_agent_max_failed_hosts=-1'),
      rollout('unknown', 'device_agent_skip_hosts=lab-host-7,lab-host-2'),
      rollout('shape', '{"device_agent_skip_hosts": {"lab-host-2": true}}'),
      // Each value whole: a number with more after it, a percentage past 100.
      rollout('tail', 'device_agent_batch=5x', 'device_agent_max_unreachable_percentage=101'),
      // Odd bytes (as a vars file or JSON can give them): a newline after the number, a terminal escape in a host.
      rollout('odd', '{"device_agent_batch": "5\\n", "device_agent_skip_hosts": ["lab-host-2\\u001b[2J"]}'),
    ]);
    for (const run of [batch, zero, failed, unknown, shape, tail, odd]) {
      expect(run.code, run.out).not.toBe(0);
      expect(run.out).toContain('Nothing was changed.');
      // No host was reached, none is summed up.
      expect(run.reached).toEqual([]);
      expect(run.out).not.toContain('TASK [Reach the host]');
    }
    expect(batch.out).toContain('device_agent_batch must be a number of hosts (1 or more) or a percentage of them (1% to 100%), not five');
    // serial 0 would be every host at once; both wrong variables named in one line.
    expect(zero.out).toMatch(/device_agent_batch must be .*, not 0; device_agent_max_unreachable_percentage must be a percentage \(0 to 100\), not 150/);
    expect(failed.out).toContain('device_agent_max_failed_hosts must be a number of hosts (0 or more), not -1');
    // A misspelt host under repair would otherwise be installed.
    expect(unknown.out).toContain('device_agent_skip_hosts names lab-host-7, not in the inventory');
    expect(tail.out).toMatch(/not 5x; device_agent_max_unreachable_percentage must be a percentage \(0 to 100\), not 101\./);
    // Named as data, on one line: the escape never reaches the operator's terminal raw.
    expect(odd.out).toContain('not 5\\n; device_agent_skip_hosts names lab-host-2\\u001b[2J, not in the inventory');
    expect(odd.out).not.toContain('\u001b');
    expect(shape.out).toContain('device_agent_skip_hosts must be a list of hosts, or hosts with commas between them');
  }, 120_000);

  it('a group the inventory does not have (device_agent_hosts misspelt) fails the run: Ansible alone only warns, and it passed', async () => {
    const run = await rollout('group', 'device_agent_hosts=device_agent');
    expect(run.code, run.out).not.toBe(0);
    expect(run.reached).toEqual([]);
    expect(run.out).toContain('No host of device_agent in the inventory: nothing was rolled out.');
  }, 120_000);

  it('hosts to skip, as a list or with commas between them, leave out exactly those hosts: lab-host-10 is not lab-host-1', async () => {
    const [comma, list, percent] = await Promise.all([
      rollout('comma', 'device_agent_skip_hosts=lab-host-10,lab-host-2'),
      rollout('list', '{"device_agent_skip_hosts": ["lab-host-10"], "device_agent_batch": 2}'),
      rollout('percent', 'device_agent_batch=100%', 'device_agent_max_failed_hosts=0'),
    ]);
    for (const run of [comma, list, percent]) expect(run.code, run.out).toBe(0);
    expect(comma.reached).toEqual(['lab-host-1']);
    expect([said(comma, 'lab-host-1'), said(comma, 'lab-host-10'), said(comma, 'lab-host-2')]).toEqual([
      'unreachable, not changed',
      'skipped (device_agent_skip_hosts), not changed',
      'skipped (device_agent_skip_hosts), not changed',
    ]);
    expect(list.reached).toEqual(['lab-host-1', 'lab-host-2']);
    expect(said(list, 'lab-host-10')).toBe('skipped (device_agent_skip_hosts), not changed');
    expect(percent.reached).toEqual(['lab-host-1', 'lab-host-10', 'lab-host-2']);
  }, 120_000);
});

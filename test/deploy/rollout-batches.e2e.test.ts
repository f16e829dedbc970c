import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemTool } from '../support/system-tool.js';

// The rollout's batches are the operator's, whatever order the hosts
// answered in. CI24's rollout check failed once with host 3 rolled back in
// the first batch beside host 1: the rollout play ran on the group the
// first play builds with group_by, which holds the hosts in the order their
// results came back. Ansible computes the batches here from the real
// playbook (test/deploy/batches.py); test/deploy/rollout.sh runs it over SSH.

const dir = mkdtempSync(join(tmpdir(), 'rollout-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const inventory = join(dir, 'inventory.ini');
writeFileSync(inventory, '[device_agents]\nlab-host-1\nlab-host-2\nlab-host-3\nlab-host-4\n\n[bench]\nlab-host-2\n');

/** The Python that ansible-playbook runs on (its #! line), where Ansible's modules are. */
function ansiblePython(): string {
  const line = readFileSync(systemTool('ansible-playbook'), 'utf8').split('\n')[0]!;
  const [interpreter, ...args] = line.replace(/^#!\s*/, '').split(/\s+/);
  // "#!/usr/bin/env python3" names it through env.
  return interpreter!.endsWith('/env') ? args[0]! : interpreter!;
}

function batches(answered: string[], extra: Record<string, unknown>): string[][] {
  const run = spawnSync(
    ansiblePython(),
    [resolve('test/deploy/batches.py'), resolve('deploy/ansible/rollout.yml'), inventory, answered.join(','), JSON.stringify(extra)],
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(run.stderr).not.toMatch(/Traceback/);
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as string[][];
}

describe('deploy/ansible/rollout.yml: the rollout batches', () => {
  it("take the reachable hosts in the inventory's order, not in the order they answered", () => {
    expect(batches(['lab-host-3', 'lab-host-2', 'lab-host-1'], { device_agent_batch: 2 })).toEqual([['lab-host-1', 'lab-host-2'], ['lab-host-3']]);
    expect(batches(['lab-host-3', 'lab-host-1', 'lab-host-2'], {})).toEqual([['lab-host-1'], ['lab-host-2'], ['lab-host-3']]);
  });

  it('leave out the hosts that did not answer, and keep to the group the operator named', () => {
    expect(batches(['lab-host-4', 'lab-host-1'], { device_agent_batch: 5 })).toEqual([['lab-host-1', 'lab-host-4']]);
    expect(batches(['lab-host-3', 'lab-host-2', 'lab-host-1'], { device_agent_batch: 5, device_agent_hosts: 'device_agents:!bench' })).toEqual([
      ['lab-host-1', 'lab-host-3'],
    ]);
  });
});

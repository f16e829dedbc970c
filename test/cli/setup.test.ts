import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { setup } from '../../src/cli/setup.js';

// Issue 70, 1: on a packaged host `incidents` and `quarantine` read another
// state directory than the service's, and nothing said which. Every command
// but the doctor (whose checklist names both) says in one line which
// settings file and state directory it read.

function said(argv: string[], env: NodeJS.ProcessEnv): string[] {
  const raw: string[] = [];
  setup(parseCli([...argv, '--log-format', 'json']), env, { write: (line: string) => raw.push(line) }, true);
  return raw.map((l) => String((JSON.parse(l) as { msg: string }).msg)).filter((m) => m.startsWith('settings: '));
}

describe('the settings and state directory a command read', () => {
  const settings = join(mkdtempSync(join(tmpdir(), 'da-setup-')), 'config.json');
  // What `run` needs to start; apiKey in the file as a test's shortcut (a host keeps it in the credential).
  writeFileSync(settings, JSON.stringify({ baseUrl: 'https://cloud.example.test/v1', username: 'lab', apiKey: 'k' }));

  it.each([['once', '--dry-run'], ['once'], ['list'], ['incidents'], ['quarantine', 'list'], ['run']])('%s says them in one line', (...argv) => {
    expect(said([...argv, '--config', settings], { STATE_DIRECTORY: '/var/lib/device-agent' })).toEqual([
      `settings: the defaults, then ${settings}, then 0 DEVICE_AGENT_* variables; state directory /var/lib/device-agent`,
    ]);
  });

  it('a stateDir of the settings wins over the one systemd gives, and the line says so', () => {
    expect(said(['incidents'], { STATE_DIRECTORY: '/var/lib/device-agent', DEVICE_AGENT_STATE_DIR: '/srv/agent' })).toEqual([
      'settings: the defaults, then 1 DEVICE_AGENT_* variables (no settings file given with --config); state directory /srv/agent',
    ]);
  });

  it("doctor says none: its checklist names the settings and the node id's directory", () => {
    expect(said(['doctor'], { STATE_DIRECTORY: '/var/lib/device-agent' })).toEqual([]);
  });
});

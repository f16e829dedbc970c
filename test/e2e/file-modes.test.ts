// The settings file and the API key file as other users on the host may
// find them (issue 42): the compiled CLI in its own process, the real adb
// server, the cloud double. A settings file any user may change names
// commands the agent runs and where the key goes, so it is refused as sshd's
// StrictModes refuses authorized_keys; a key file others may read is said.
import { chmodSync, chownSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';
import { baseEnv, runAgent } from './agent-process.js';

const adb = new AdbServer();
const cloud = new CloudDouble();
const asRoot = process.geteuid?.() === 0;

beforeAll(async () => {
  await Promise.all([adb.start(), cloud.start()]);
});

afterAll(async () => {
  await adb.stop();
  await cloud.stop();
});

function settingsFile(fileMode: number, dirMode = 0o700): string {
  const dir = mkdtempSync(join(tmpdir(), 'da-modes-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ recovery: { powerCycleCommand: '/bin/true' } }));
  chmodSync(path, fileMode);
  chmodSync(dir, dirMode);
  return path;
}

const env = (extra: Record<string, string> = {}) => baseEnv({ ...adb.env, ...extra });
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.trim() !== '');

describe('a settings file other users may change', () => {
  it('writable by every user: exit 2, one line naming the file, why and the chmod', async () => {
    const path = settingsFile(0o666);
    const run = await runAgent(['once', '--dry-run', '--config', path], env());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = errorLines(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${path} is writable by every user on the host (mode 0666)`);
    expect(lines[0]).toContain(`Fix: chmod o-w ${path}`);
  });

  it('in a directory every user may write, without the sticky bit: exit 2 naming the directory', async () => {
    const path = settingsFile(0o644, 0o777);
    const run = await runAgent(['once', '--dry-run', '--config', path], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('without the sticky bit (mode 0777)');
  });

  it.runIf(asRoot)('owned by another user than root or the agent: exit 2 with the chown', async () => {
    const path = settingsFile(0o644);
    chownSync(path, 4242, 4242);
    const run = await runAgent(['once', '--dry-run', '--config', path], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`owned by uid 4242, neither root nor the user the agent runs as (uid 0)`);
    expect(run.stderr).toContain(`Fix: chown root ${path}`);
  });

  it('mode 0644 of the agent user, in its own directory: read as before', async () => {
    const run = await runAgent(['once', '--dry-run', '--config', settingsFile(0o644)], env());
    expect(run.code, run.stderr).toBe(0);
  });
});

describe('an API key file every user may read', () => {
  function keyEnv(mode: number): Record<string, string> {
    const path = join(mkdtempSync(join(tmpdir(), 'da-key-')), 'api-key');
    writeFileSync(path, `${cloud.apiKey}\n`);
    chmodSync(path, mode);
    return env({ DEVICE_AGENT_BASE_URL: cloud.url, DEVICE_AGENT_USERNAME: cloud.username, DEVICE_AGENT_API_KEY_FILE: path });
  }

  it('is said once with the chmod, and the report still goes; a 0600 file is not', async () => {
    const run = await runAgent(['once'], keyEnv(0o644));
    expect(run.code, run.stderr).toBe(0);
    const said = run.stderr.split('\n').filter((l) => l.includes('readable by every user'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('"level":"warn"');
    expect(said[0]).toContain('Fix: chmod 600');
    expect(run.stderr + run.stdout).not.toContain(cloud.apiKey);
    const quiet = await runAgent(['once'], keyEnv(0o600));
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('readable by');
  });
});

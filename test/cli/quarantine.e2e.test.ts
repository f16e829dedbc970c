import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { QUARANTINE_FILE, QUARANTINE_REQUESTS_DIR, quarantineFileText } from '../../src/devices/quarantine.js';

// The quarantine command's channel to the daemon as another user meets it:
// the compiled CLI, run as nobody (setpriv) against a state directory of
// the agent's user (root here), as the service's StateDirectory= makes it.

const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');
const asNobody = (dir: string, ...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bin, 'quarantine', ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', DEVICE_AGENT_STATE_DIR: dir }, timeout: 30_000 },
      (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

describe('device-agent quarantine as another user', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(process.getuid?.() === 0)(
    "cannot read the agent's state directory: one line saying to run it as the agent's user, exit 1; may read it but not write: the same for the release, nothing left",
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'q-user-'));
      const now = Date.now();
      writeFileSync(join(dir, QUARANTINE_FILE), quarantineFileText([['U1', { serial: 'S1', since: now, until: now + 1_200_000, starts: [now] }]]));
      chmodSync(dir, 0o750);
      const unreadable = await asNobody(dir, 'list');
      expect(unreadable.code).toBe(1);
      expect(unreadable.stderr).toBe(
        `device-agent: cannot read ${join(dir, QUARANTINE_FILE)}: this user may not; run it as the agent's user (sudo -u device-agent device-agent quarantine ...)\n`,
      );
      chmodSync(dir, 0o755);
      chmodSync(join(dir, QUARANTINE_FILE), 0o644);
      expect((await asNobody(dir, 'list')).stdout).toMatch(/^S1 \(U1\): since /);
      const release = await asNobody(dir, 'release', 'S1');
      expect(release.code).toBe(1);
      expect(release.stderr).toMatch(
        /^device-agent: cannot leave the release of S1 in .*quarantine-requests: EACCES: .*; run it as the agent's user \(sudo -u device-agent device-agent quarantine release S1\)\n$/,
      );
      expect(existsSync(join(dir, QUARANTINE_REQUESTS_DIR))).toBe(false);
    },
    60_000,
  );
});

import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { incidentFileName, incidentText, INCIDENTS_DIR } from '../../src/devices/incidents.js';
import { QUARANTINE_FILE, QUARANTINE_REQUESTS_DIR, quarantineFileText } from '../../src/devices/quarantine.js';
import { QuarantineFiles } from '../../src/features/quarantine/store.js';
import { silentLogger } from '../../src/log/logger.js';
import { writeAtomically } from '../../src/util/atomic-file.js';

// The quarantine command's channel to the daemon, and the incidents it
// keeps, as another user meets them: the compiled CLI, run as nobody
// (setpriv) against a state directory of the agent's user (root here), as
// the service's StateDirectory= makes it; outside the agent's group, then
// in it (issue 70, 1: the package's operators).

const bin = resolve(fileURLToPath(import.meta.url), '../../../bin/device-agent.js');
/** The command as nobody, in no group but those given (the agent's, for an operator the package lets in); stderr without the line naming the settings. */
const asNobody = (dir: string, args: string[], groups: number[] = []) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      'setpriv',
      ['--reuid=65534', '--regid=65534', groups.length ? `--groups=${groups.join(',')}` : '--clear-groups', process.execPath, bin, ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', DEVICE_AGENT_STATE_DIR: dir }, timeout: 30_000 },
      (err, stdout, stderr) =>
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr: stderr.replace(/^\{[^\n]*"msg":"settings: [^\n]*\n/m, '') }),
    ),
  );
const ADVICE = "run it as root, or as a user of the agent's group (the package's: usermod -aG device-agent USER, then log in again)";

describe('device-agent quarantine as another user', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(process.getuid?.() === 0)(
    "cannot read the agent's state directory: one line saying to run it as root or in the agent's group, exit 1; may read it but not write: the same for the release, nothing left",
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'q-user-'));
      const now = Date.now();
      writeFileSync(join(dir, QUARANTINE_FILE), quarantineFileText([['U1', { serial: 'S1', since: now, until: now + 1_200_000, starts: [now] }]]));
      chmodSync(dir, 0o750);
      const unreadable = await asNobody(dir, ['quarantine', 'list']);
      expect(unreadable.code).toBe(1);
      expect(unreadable.stderr).toBe(`device-agent: cannot read ${join(dir, QUARANTINE_FILE)}: this user may not; ${ADVICE}\n`);
      mkdirSync(join(dir, INCIDENTS_DIR), { mode: 0o750 });
      chmodSync(dir, 0o711);
      const incidents = await asNobody(dir, ['incidents']);
      expect(incidents.code).toBe(1);
      expect(incidents.stderr).toBe(
        `device-agent: cannot read ${join(dir, INCIDENTS_DIR)}: EACCES: permission denied, scandir '${join(dir, INCIDENTS_DIR)}'; ${ADVICE}\n`,
      );
      chmodSync(dir, 0o755);
      chmodSync(join(dir, QUARANTINE_FILE), 0o644);
      expect((await asNobody(dir, ['quarantine', 'list'])).stdout).toMatch(/^S1 \(U1\): since /);
      const release = await asNobody(dir, ['quarantine', 'release', 'S1']);
      expect(release.code).toBe(1);
      expect(release.stderr).toBe(
        `device-agent: cannot leave the release of S1 in ${join(dir, QUARANTINE_REQUESTS_DIR)}: EACCES: permission denied, mkdir '${join(dir, QUARANTINE_REQUESTS_DIR)}'; ${ADVICE}\n`,
      );
      expect(existsSync(join(dir, QUARANTINE_REQUESTS_DIR))).toBe(false);
    },
    60_000,
  );

  it.runIf(process.getuid?.() === 0)(
    "a user of the agent's group (the package's operators) reads the state directory the agent keeps (0750, files 0640) and leaves a release the daemon takes",
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'q-group-'));
      const now = Date.now();
      writeFileSync(join(dir, QUARANTINE_FILE), quarantineFileText([['U1', { serial: 'S1', since: now, until: now + 1_200_000, starts: [now] }]]), {
        mode: 0o640,
      });
      const incident = incidentFileName(now, { udid: 'U1', serial: 'S1' }, 'quarantine', 1);
      writeAtomically(
        join(dir, INCIDENTS_DIR, incident),
        incidentText({ udid: 'U1', serial: 'S1', kind: 'quarantine', cause: 'kept failing', at: now, events: [] }),
      );
      // As the daemon, of umask 0027, leaves it; its quarantine folder as the package's tmpfiles.d makes it.
      chmodSync(dir, 0o750);
      chmodSync(join(dir, INCIDENTS_DIR), 0o750);
      chmodSync(join(dir, INCIDENTS_DIR, incident), 0o640);
      mkdirSync(join(dir, QUARANTINE_REQUESTS_DIR), { mode: 0o2770 });
      chmodSync(join(dir, QUARANTINE_REQUESTS_DIR), 0o2770);
      const files = new QuarantineFiles(dir, silentLogger());
      const group = [process.getgid!()];
      expect(await asNobody(dir, ['quarantine', 'list'], group)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^S1 \(U1\): since /) });
      expect(await asNobody(dir, ['incidents'], group)).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/ {2}S1 \(U1\) {2}quarantine {2}kept failing\n$/),
      });
      const release = await asNobody(dir, ['quarantine', 'release', 'S1'], group);
      expect(release).toMatchObject({ code: 0, stdout: `S1: release asked; the daemon does not run on ${dir}, and takes it when it starts\n` });
      expect(files.take()).toEqual([expect.objectContaining({ release: 'U1' })]);
      expect(readdirSync(join(dir, QUARANTINE_REQUESTS_DIR)).filter((n) => n.endsWith('.json'))).toEqual([]);
    },
    60_000,
  );
});

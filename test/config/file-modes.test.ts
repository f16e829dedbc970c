import { describe, expect, it } from 'vitest';
import { keyFileExposure, settingsFileProblem } from '../../src/config/file-modes.js';

const AGENT = 998;
const rootDir = { path: '/etc/device-agent', mode: 0o40755, uid: 0, gid: 0 };
const file = (mode: number, uid = 0, gid = 0) => ({ mode: 0o100000 | mode, uid, gid });

describe('settingsFileProblem: a settings file other users may change is refused, as sshd StrictModes does (issue 42)', () => {
  it('takes the shipped set-up: root-owned 0644 or 0640 in root-owned /etc/device-agent, and a file of the agent user', () => {
    expect(settingsFileProblem('/etc/device-agent/config.json', file(0o644), rootDir, AGENT)).toBeUndefined();
    expect(settingsFileProblem('/etc/device-agent/config.json', file(0o640, 0, AGENT), rootDir, AGENT)).toBeUndefined();
    expect(settingsFileProblem('/home/lab/c.json', file(0o600, AGENT), { path: '/home/lab', mode: 0o40700, uid: AGENT, gid: AGENT }, AGENT)).toBeUndefined();
  });

  it('refuses a file writable by every user, naming it, why and the chmod', () => {
    const problem = settingsFileProblem('/etc/device-agent/config.json', file(0o666), rootDir, AGENT);
    expect(problem).toContain('/etc/device-agent/config.json is writable by every user on the host (mode 0666)');
    expect(problem).toContain('Fix: chmod o-w /etc/device-agent/config.json');
  });

  it('refuses a file owned by another user than root or the agent, with the chown', () => {
    const problem = settingsFileProblem('/etc/device-agent/config.json', file(0o644, 1000), rootDir, AGENT);
    expect(problem).toContain(`owned by uid 1000, neither root nor the user the agent runs as (uid ${AGENT})`);
    expect(problem).toContain('Fix: chown root /etc/device-agent/config.json');
  });

  it('refuses a file in a directory anyone may write without the sticky bit, or owned by another user; takes /tmp (sticky)', () => {
    expect(settingsFileProblem('/srv/x/c.json', file(0o644), { path: '/srv/x', mode: 0o40777, uid: 0, gid: 0 }, AGENT)).toContain(
      'lies in /srv/x, writable by every user on the host without the sticky bit (mode 0777)',
    );
    expect(settingsFileProblem('/srv/x/c.json', file(0o644), { path: '/srv/x', mode: 0o40755, uid: 1000, gid: 0 }, AGENT)).toContain('Fix: chown root /srv/x');
    expect(settingsFileProblem('/tmp/c.json', file(0o644), { path: '/tmp', mode: 0o41777, uid: 0, gid: 0 }, AGENT)).toBeUndefined();
  });
});

describe('keyFileExposure: an API key file other users may read', () => {
  it('is named for mode 0644, or group-readable by a group not the agent’s or root’s; 0600, 0400 and 0640 to the agent’s group are fine', () => {
    expect(keyFileExposure('/etc/device-agent/api-key', file(0o644), AGENT)).toBe(
      'the API key file /etc/device-agent/api-key is readable by every user on the host (mode 0644): the key is theirs too. Fix: chmod 600 /etc/device-agent/api-key (or 640 with the group the agent runs as)',
    );
    expect(keyFileExposure('/k', file(0o640, 0, 100), AGENT)).toContain('readable by the members of group 100');
    for (const ok of [file(0o600), file(0o400, AGENT), file(0o640, 0, AGENT), file(0o640, 0, 0)]) expect(keyFileExposure('/k', ok, AGENT)).toBeUndefined();
  });
});

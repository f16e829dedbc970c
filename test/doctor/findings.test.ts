import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADB_DOCTOR, parseAdbVersion } from '../../src/platforms/android/doctor.js';
import { AdbUnreachableError } from '../../src/platforms/android/adb/errors.js';
import { readEnvironment } from '../../src/config/environment.js';
import { CloudAuthError, CloudProtocolError, CloudRejectedError, CloudUnavailableError } from '../../src/cloud/errors.js';
import type { CheckStatus } from '../../src/doctor/checklist.js';
import {
  adbServerFailed,
  adbToolItem,
  clockItem,
  cloudFailed,
  cloudItem,
  cloudSettingsItem,
  deviceItem,
  formatDuration,
  NoAnswerError,
  nodeIdItem,
  parseModel,
  safeUrl,
  settingsItem,
  variableWarning,
  type CloudTarget,
} from '../../src/doctor/findings.js';
import { listProfiles, loadProfile, parseGetprop } from '../sim/profile.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const target: CloudTarget = {
  baseUrl: 'https://cloud.example.com/v1',
  username: 'lab@example.com',
  keySource: '/run/credentials/device-agent.service/api-key',
};

describe('clockItem', () => {
  it('is ok up to 30 s either way, warns up to 5 min, fails beyond', () => {
    expect(clockItem(0).status).toBe('ok');
    expect(clockItem(30_000).status).toBe('ok');
    expect(clockItem(-30_000).status).toBe('ok');
    expect(clockItem(30_001).status).toBe('warn');
    expect(clockItem(-300_000).status).toBe('warn');
    expect(clockItem(300_001).status).toBe('fail');
    expect(clockItem(-3_600_000).status).toBe('fail');
  });

  it('names the direction: a positive skew is a cloud ahead of the host', () => {
    expect(clockItem(600_000).finding).toBe('clock: this host is 10 min behind the cloud; TLS certificates and signed URLs break at this skew');
    expect(clockItem(-45_000).finding).toBe('clock: this host is 45 s ahead of the cloud');
    expect(clockItem(-45_000).advice).toMatch(/timedatectl/);
  });

  it('warns when the cloud sent no usable date', () => {
    expect(clockItem(undefined).status).toBe('warn');
    expect(clockItem(Number.NaN).status).toBe('warn');
  });

  it('never gets better as the skew grows', () => {
    const rank: Record<CheckStatus, number> = { ok: 0, unread: 0, warn: 1, fail: 2 };
    fc.assert(
      fc.property(fc.integer({ min: -1e10, max: 1e10 }), fc.integer({ min: 0, max: 1e10 }), (skew, more) => {
        const bigger = skew >= 0 ? skew + more : skew - more;
        expect(rank[clockItem(bigger).status]).toBeGreaterThanOrEqual(rank[clockItem(skew).status]);
      }),
    );
  });
});

describe('formatDuration', () => {
  it('rounds to the unit a person reads', () => {
    expect(formatDuration(400)).toBe('0 s');
    expect(formatDuration(59_600)).toBe('60 s');
    expect(formatDuration(-119_000)).toBe('119 s');
    expect(formatDuration(600_000)).toBe('10 min');
    expect(formatDuration(3 * 3_600_000)).toBe('3 h');
    expect(formatDuration(3 * 86_400_000)).toBe('3 days');
  });
});

describe('deviceItem', () => {
  it('is ok for a ready device with its model', () => {
    expect(deviceItem({ serial: '0816f3699208ee6d', state: 'device', model: 'Pixel 8 Pro' }, ADB_DOCTOR)).toEqual({
      id: 'phone',
      phone: '0816f3699208ee6d',
      status: 'ok',
      finding: 'device 0816f3699208ee6d: device, Pixel 8 Pro',
    });
    expect(deviceItem({ serial: 'X', state: 'device', model: 'SM-S936B', hidden: 'udid' }, ADB_DOCTOR).finding).toBe(
      'device X: device, SM-S936B, reported hidden',
    );
  });

  it('fails states that need the operator, with the advice of each', () => {
    const unauthorized = deviceItem({ serial: '10.10.176.186:7401', state: 'unauthorized' }, ADB_DOCTOR);
    expect(unauthorized.status).toBe('fail');
    expect(unauthorized.advice).toMatch(/Allow USB debugging/);
    const noPermissions = deviceItem(
      {
        serial: 'eb9f484b',
        state: 'no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]',
      },
      ADB_DOCTOR,
    );
    expect(noPermissions.status).toBe('fail');
    expect(noPermissions.advice).toMatch(/udev rule/);
    expect(deviceItem({ serial: 'emulator-5554', state: 'offline' }, ADB_DOCTOR).advice).toMatch(/reconnect/i);
    expect(deviceItem({ serial: 'R', state: 'recovery' }, ADB_DOCTOR).advice).toMatch(/recovery/);
    // A phone's own failure: it fails the doctor only with --phones fail (atPhoneLevel).
    expect(unauthorized.phone).toBe('10.10.176.186:7401');
    expect(noPermissions.phone).toBe('eb9f484b');
  });

  it('only warns for states adb is still working through', () => {
    expect(deviceItem({ serial: 'A', state: 'authorizing' }, ADB_DOCTOR).status).toBe('warn');
    expect(deviceItem({ serial: 'A', state: 'connecting' }, ADB_DOCTOR).status).toBe('warn');
  });

  it('warns when a ready device gave no model', () => {
    const item = deviceItem({ serial: 'A', state: 'device', unread: 'its shell failed: timeout' }, ADB_DOCTOR);
    expect(item.status).toBe('warn');
    expect(item.finding).toBe('device A: device, but its shell failed: timeout');
    expect(item.advice).toMatch(/reboot/);
  });

  it('has advice for a state nobody listed (invented: an empty state)', () => {
    const item = deviceItem({ serial: 'A', state: '' }, ADB_DOCTOR);
    expect(item.finding).toBe('device A: unknown');
    expect(item.advice).toMatch(/reconnect/);
  });
});

describe('parseModel', () => {
  it('reads ro.product.model as each recorded device answers it, with LF or a pty CRLF', () => {
    const profiles = listProfiles();
    expect(profiles.length).toBeGreaterThan(0);
    for (const name of profiles) {
      const dump = loadProfile(name).commands.get('getprop')?.output ?? '';
      const model = parseGetprop(dump).get('ro.product.model');
      if (model === undefined) continue;
      expect(parseModel(`${model}\n`), name).toBe(model);
      expect(parseModel(`${model}\r\n`), name).toBe(model);
    }
  });

  it('is undefined for an empty answer (invented: a device without the property)', () => {
    expect(parseModel('\n')).toBeUndefined();
    expect(parseModel('')).toBeUndefined();
  });
});

describe('parseAdbVersion', () => {
  it('reads the internal version, the release and the path of real adb version outputs', () => {
    expect(parseAdbVersion(readFileSync(join(fixtures, 'adb-version', 'platform-tools-36.txt'), 'utf8'))).toEqual({
      version: 41,
      release: '36.0.0-13206524',
      path: '/data1/code/platform-tools-latest-linux/platform-tools/adb',
    });
    expect(parseAdbVersion(readFileSync(join(fixtures, 'adb-version', 'debian-29.txt'), 'utf8'))).toEqual({
      version: 41,
      release: '29.0.6-debian',
      path: '/usr/lib/android-sdk/platform-tools/adb',
    });
  });

  it('is undefined for anything else (invented garbage)', () => {
    expect(parseAdbVersion('')).toBeUndefined();
    expect(parseAdbVersion('bash: adb: command not found')).toBeUndefined();
  });
});

describe('adbToolItem', () => {
  const tool = { version: 41, release: '36.0.0-13206524', path: '/opt/platform-tools/adb' };

  it('is ok when the adb on PATH matches the server', () => {
    expect(adbToolItem(tool, 41)).toEqual({
      id: 'adb.command',
      status: 'ok',
      finding: 'adb command /opt/platform-tools/adb: 1.0.41, 36.0.0-13206524, same version as the server',
    });
  });

  it('warns that another version would kill the server (as in "adb server version (40) doesn\'t match this client (41)")', () => {
    const item = adbToolItem(tool, 40);
    expect(item.status).toBe('warn');
    expect(item.finding).toMatch(/is 1\.0\.41.* but the server is 1\.0\.40: running it kills and restarts the server/);
  });
});

describe('adbServerFailed', () => {
  it('says how to start adb when nothing listens', () => {
    const item = adbServerFailed('tcp:127.0.0.1:5037 (default tcp:localhost:5037)', new AdbUnreachableError('tcp:127.0.0.1:5037', 'ECONNREFUSED'), ADB_DOCTOR);
    expect(item).toMatchObject({ status: 'fail', finding: 'adb server tcp:127.0.0.1:5037 (default tcp:localhost:5037): not reachable (ECONNREFUSED)' });
    expect(item.advice).toMatch(/adb start-server.*device-agent-adb.*ADB_SERVER_SOCKET/);
  });

  it('says what to check when the address never answers', () => {
    const item = adbServerFailed('tcp:10.0.0.2:5037 (ADB_SERVER_SOCKET)', new NoAnswerError('adb server', 10_000), ADB_DOCTOR);
    expect(item.finding).toBe('adb server tcp:10.0.0.2:5037 (ADB_SERVER_SOCKET): connected, but no answer within 10 s');
    expect(item.advice).toMatch(/kill-server/);
  });
});

describe('cloud findings', () => {
  it('reports accepted credentials with what the cloud answered', () => {
    const item = cloudItem(target, { status: 200, serverDate: 0, clockSkewMs: 0, roundTripMs: 42, privateDevices: 1 });
    expect(item).toEqual({
      id: 'cloud',
      status: 'ok',
      finding: 'cloud https://cloud.example.com/v1 accepts the credentials of lab@example.com, 1 private device, answered in 42 ms',
    });
  });

  it('names the credential settings and the key source on 401 and 403', () => {
    const rejected = cloudFailed(target, new CloudAuthError('GET /devices', 401));
    expect(rejected.status).toBe('fail');
    expect(rejected.finding).toBe(
      'cloud https://cloud.example.com/v1 rejected the credentials of lab@example.com (HTTP 401; API key from /run/credentials/device-agent.service/api-key)',
    );
    expect(rejected.advice).toMatch(/DEVICE_AGENT_USERNAME.*DEVICE_AGENT_API_KEY/);
    const forbidden = cloudFailed(target, new CloudAuthError('GET /devices', 403));
    expect(forbidden.finding).toMatch(/refused access for lab@example.com \(HTTP 403/);
    expect(forbidden.advice).toMatch(/allowed to report devices/);
  });

  it('points at the clock when the certificate is out of its validity period', () => {
    const item = cloudFailed(
      target,
      new CloudUnavailableError('GET /devices', 'TLS problem (CERT_NOT_YET_VALID: certificate is not yet valid)', {
        code: 'CERT_NOT_YET_VALID',
        retryable: false,
      }),
    );
    expect(item.finding).toMatch(/not reachable: TLS problem/);
    expect(item.advice).toMatch(/host clock/);
  });

  it('tells a network problem from a cloud in trouble', () => {
    expect(cloudFailed(target, new CloudUnavailableError('GET /devices', 'ECONNREFUSED', { code: 'ECONNREFUSED' })).advice).toMatch(
      /DEVICE_AGENT_BASE_URL, DNS/,
    );
    expect(cloudFailed(target, new CloudUnavailableError('GET /devices', 'HTTP 503 Service Unavailable', { status: 503 })).advice).toMatch(/cloud itself/);
  });

  it('says the base URL is wrong when something else than the v1 API answers', () => {
    const html = cloudFailed(target, new CloudProtocolError('GET /devices', 200, 'text/html', '<html>login</html>', 'not JSON'));
    expect(html.finding).toMatch(/did not answer like the v1 API \(status 200, content-type "text\/html"\)/);
    expect(html.advice).toMatch(/v1 root/);
    const missing = cloudFailed(target, new CloudRejectedError('GET /devices', 404, '{"error":"Not Found"}'));
    expect(missing.finding).toMatch(/rejected GET \/devices with HTTP 404/);
  });

  it('warns about an API key sent over plain http to another host, not to loopback', () => {
    expect(cloudSettingsItem(target).status).toBe('ok');
    expect(cloudSettingsItem({ ...target, baseUrl: 'http://127.0.0.1:8080/v1' }).status).toBe('ok');
    expect(cloudSettingsItem({ ...target, baseUrl: 'http://localhost:8080/v1' }).status).toBe('ok');
    const clear = cloudSettingsItem({ ...target, baseUrl: 'http://cloud.example.com/v1' });
    expect(clear.status).toBe('warn');
    expect(clear.advice).toMatch(/https/);
  });

  it('never shows user info or a query of the base URL', () => {
    expect(safeUrl('https://bob:hunter2@cloud.example.com/v1?token=abc#x')).toBe('https://cloud.example.com/v1');
    expect(safeUrl('not a url')).toBe('(invalid URL)');
  });
});

describe('settingsItem', () => {
  it('names the variables the agent read (readEnvironment picks them, never values)', () => {
    const item = settingsItem(
      readEnvironment({ DEVICE_AGENT_API_KEY: 'k3y-value', DEVICE_AGENT_BASE_URL: 'https://x/v1', DEVICE_AGENT_NODE_ID: '', HOME: '/root' }).known,
    );
    expect(item).toEqual({ id: 'config', status: 'ok', finding: 'configuration valid (variables set: DEVICE_AGENT_API_KEY, DEVICE_AGENT_BASE_URL)' });
    expect(settingsItem([]).finding).toBe('configuration valid (no DEVICE_AGENT_* variables set)');
  });

  it('leaves an unknown variable out of the OK line: it is a warning of its own, with the closest name', () => {
    const reading = readEnvironment({ DEVICE_AGENT_BASEURL: 'https://x/v1', DEVICE_AGENT_USERNAME: 'u' });
    expect(settingsItem(reading.known).finding).toBe('configuration valid (variables set: DEVICE_AGENT_USERNAME)');
    const [warning] = reading.warnings.map((w) => variableWarning(w));
    expect(warning).toMatchObject({ status: 'warn', finding: expect.stringContaining('did you mean DEVICE_AGENT_BASE_URL?') });
  });
});

describe('nodeIdItem', () => {
  it('is ok when the id is configured, kept, or can be kept', () => {
    expect(nodeIdItem({ kind: 'configured', id: 'lab-1' }).finding).toBe('node id lab-1 (DEVICE_AGENT_NODE_ID)');
    expect(nodeIdItem({ kind: 'kept', id: 'abc', file: '/var/lib/device-agent/node-id' }).finding).toBe('node id abc (kept in /var/lib/device-agent/node-id)');
    expect(nodeIdItem({ kind: 'new', dir: '/var/lib/device-agent' }).status).toBe('ok');
  });

  it('fails when the id can be neither read nor kept', () => {
    const unwritable = nodeIdItem({ kind: 'unwritable', dir: '/var/lib/device-agent', reason: 'EACCES' });
    expect(unwritable.status).toBe('fail');
    expect(unwritable.advice).toMatch(/DEVICE_AGENT_STATE_DIR.*DEVICE_AGENT_NODE_ID/);
    const unreadable = nodeIdItem({ kind: 'unreadable', file: '/var/lib/device-agent/node-id', reason: 'EACCES' });
    expect(unreadable.status).toBe('fail');
    expect(unreadable.advice).toMatch(/root/);
  });
});

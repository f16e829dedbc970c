import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer, freePort } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { baseEnv, runAgent } from './agent-process.js';
import { checkOf, doctorJson } from './doctor-checks.js';

// `doctor` end to end: the compiled CLI in its own process, the real adb
// server with simulated devices attached over TCP, and the cloud double.

// Two adb servers: one with a ready device only (the all-good run), one that
// also has a device waiting for USB debugging authorization and an offline one.
const adb = new AdbServer();
const lockedAdb = new AdbServer();
const cloud = new CloudDouble();
const pixel = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PIXEL8PRO0001') });
const locked = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'LOCKED0002'), mode: 'unauthorized' });
const silent = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'SILENT0003'), mode: 'offline' });
let baseUrl = '';
let pixelSerial = '';
let lockedSerial = '';
let silentSerial = '';

beforeAll(async () => {
  await Promise.all([adb.start(), lockedAdb.start()]);
  baseUrl = await cloud.start();
  const [pixelPort, lockedPort, silentPort] = await Promise.all([pixel.start(), locked.start(), silent.start()]);
  pixelSerial = `127.0.0.1:${pixelPort}`;
  lockedSerial = `127.0.0.1:${lockedPort}`;
  silentSerial = `127.0.0.1:${silentPort}`;
  await adb.connect(pixelPort, { wait: false });
  await lockedAdb.connect(pixelPort, { wait: false });
  await lockedAdb.connect(lockedPort, { wait: false });
  await lockedAdb.connect(silentPort, { wait: false });
  await adb.waitForStates(new Map([[pixelSerial, 'device']]), 20_000);
  await lockedAdb.waitForStates(
    new Map([
      [pixelSerial, 'device'],
      [lockedSerial, 'unauthorized'],
      [silentSerial, 'offline'],
    ]),
    20_000,
  );
});

afterAll(async () => {
  await Promise.all([adb.stop(), lockedAdb.stop()]);
  await Promise.all([pixel.stop(), locked.stop(), silent.stop(), cloud.stop()]);
});

function env(extra: Record<string, string> = {}) {
  return baseEnv({
    ADB_SERVER_SOCKET: adb.env.ADB_SERVER_SOCKET,
    DEVICE_AGENT_BASE_URL: baseUrl,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    // The USB layer's host lines depend on the host (a /dev/kmsg readable or not): test/e2e/surfaces.test.ts drives them with a recording.
    DEVICE_AGENT_USB_KERNEL_LOG: '',
    DEVICE_AGENT_USB_SYSFS_ROOT: '',
    ...extra,
  });
}

/** The checklist line that mentions `text`, and the advice line under it, if any. */
function lineWith(stdout: string, text: string): { line: string; advice: string | undefined } {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.includes(text));
  expect(at, `no line with ${text} in:\n${stdout}`).toBeGreaterThanOrEqual(0);
  const next = lines[at + 1];
  return { line: lines[at]!, advice: next?.startsWith('       -> ') ? next : undefined };
}

describe('doctor', () => {
  it('with a ready device only, exits 0 with ok checks for config, adb, device, cloud and clock, by their ids', async () => {
    pixel.resetCounts();
    cloud.clearRequests();
    const run = await runAgent(['doctor', '--json'], env());
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = doctorJson(run.stdout);
    expect(json).toMatchObject({ exitCode: 0, failed: 0, warnings: 0 });
    expect(checkOf(run.stdout, 'config')).toMatchObject({
      status: 'ok',
      finding: expect.stringMatching(/cloud settings: .*API key from DEVICE_AGENT_API_KEY/),
    });
    expect(checkOf(run.stdout, 'node-id').status).toBe('ok');
    expect(checkOf(run.stdout, 'adb.server')).toEqual({
      id: 'adb.server',
      status: 'ok',
      finding: `adb server tcp:127.0.0.1:${adb.port} (ADB_SERVER_SOCKET), version 41 (adb 1.0.41)`,
    });
    expect(checkOf(run.stdout, 'adb.command').finding).toMatch(/^adb command .*: 1\.0\.41, .*same version as the server$/);
    // Over TCP adb has no usb path: the transport id says which connection it is.
    expect(checkOf(run.stdout, 'phone', pixelSerial)).toMatchObject({
      status: 'ok',
      finding: expect.stringMatching(new RegExp(`^device ${pixelSerial.replace(/\./g, '\\.')}: device, Pixel 8 Pro \\[transport \\d+\\]$`)),
    });
    expect(checkOf(run.stdout, 'cloud').finding).toMatch(new RegExp(`^cloud .* accepts the credentials of ${cloud.username}`));
    expect(checkOf(run.stdout, 'clock').status).toBe('ok');
    // The recording answers no battery, wear or readiness command: each is unread, and why, never fine nor missing.
    expect(json.checks.filter((c) => c.status === 'unread').map((c) => [c.id, c.phone])).toEqual([
      ['phone.battery', pixelSerial],
      ['phone.wear', pixelSerial],
      ['phone.readiness', pixelSerial],
    ]);
    expect(json.checks.map((c) => c.id).filter((id) => !id.startsWith('phone'))).toEqual([
      'config',
      'node-id',
      'ios.tools',
      'adb.server',
      'adb.command',
      'usb.kernel-log',
      'usb.ports',
      'availability',
      'quarantine',
      'usbmuxd',
      'proxy',
      'cloud',
      'clock',
      'status-endpoint',
    ]);
    // One cheap getprop, and only a read at the cloud.
    expect(pixel.shellSessions).toBe(1);
    expect(cloud.putRequests()).toHaveLength(0);
    expect(run.stdout + run.stderr).not.toContain(cloud.apiKey);
  });

  it('warns with the advice for an unauthorized and an offline phone, and exits 0: the host can report; their checks unread, and why, on one line each', async () => {
    const run = await runAgent(['doctor'], env({ ADB_SERVER_SOCKET: lockedAdb.env.ADB_SERVER_SOCKET! }));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`[ -- ] device ${lockedSerial}: battery, wear, readiness unread: adb lists it unauthorized\n`);
    expect(run.stdout).toContain(`[ -- ] device ${silentSerial}: battery, wear, readiness unread: adb lists it offline\n`);
    const { line, advice } = lineWith(run.stdout, lockedSerial);
    expect(line).toMatch(new RegExp(`^\\[WARN\\] device ${lockedSerial.replace(/\./g, '\\.')}: unauthorized \\[transport \\d+\\]$`));
    expect(advice).toMatch(/Allow USB debugging/);
    const offline = lineWith(run.stdout, silentSerial);
    expect(offline.line).toMatch(new RegExp(`^\\[WARN\\] device ${silentSerial.replace(/\./g, '\\.')}: offline \\[transport \\d+\\]$`));
    // The simulated phones are reached over TCP: the advice names the network, not a USB cable that is not there.
    expect(offline.advice).toMatch(/does not answer adb over the network/);
    expect(offline.advice).not.toMatch(/USB cable/);
    // What is fine, on one line: the ready phone counted, the cloud named.
    expect(lineWith(run.stdout, '[ OK ]').line).toMatch(/^\[ OK \] .*\bcloud\b.*, 1 phone$/);
    expect(run.stdout).not.toContain(`device ${pixelSerial}: device`);
    expect(run.stdout).not.toMatch(/\[FAIL\]/);
    expect(run.stdout).toMatch(/^2 warnings, 9 unread of \d+ checks\.$/m);
  });

  it('with --phones fail, fails on the same phones and exits 1', async () => {
    const run = await runAgent(['doctor', '--phones', 'fail'], env({ ADB_SERVER_SOCKET: lockedAdb.env.ADB_SERVER_SOCKET! }));
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const { line, advice } = lineWith(run.stdout, lockedSerial);
    expect(line).toMatch(new RegExp(`^\\[FAIL\\] device ${lockedSerial.replace(/\./g, '\\.')}: unauthorized \\[transport \\d+\\]$`));
    expect(advice).toMatch(/Allow USB debugging/);
    expect(lineWith(run.stdout, silentSerial).line).toMatch(/^\[FAIL\] .*: offline/);
    expect(lineWith(run.stdout, '[ OK ]').line).toMatch(/\bcloud\b/);
    expect(run.stdout).toMatch(/^2 failed, 9 unread of \d+ checks\.$/m);
  });

  it("with --phones warn, a host's own failure still fails (no adb server)", async () => {
    const port = await freePort();
    const run = await runAgent(['doctor', '--phones', 'warn'], env({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` }));
    expect(run.code, run.stdout).toBe(1);
    expect(lineWith(run.stdout, 'adb server').line).toMatch(/^\[FAIL\] adb server .*not reachable/);
  });

  it('without an adb server says how to start adb, and still checks the cloud', async () => {
    const port = await freePort();
    cloud.clearRequests();
    const run = await runAgent(['doctor'], env({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` }));
    expect(run.code).toBe(1);
    const { line, advice } = lineWith(run.stdout, 'adb server');
    expect(line).toBe(`[FAIL] adb server tcp:127.0.0.1:${port} (ADB_SERVER_SOCKET): not reachable (ECONNREFUSED)`);
    expect(advice).toMatch(/adb start-server/);
    expect(run.stdout).not.toMatch(/device 127\.0\.0\.1/);
    expect(lineWith(run.stdout, '[ OK ]').line).toMatch(/\bcloud\b/);
    expect(cloud.requests.filter((r) => r.method === 'GET' && r.path === '/devices')).toHaveLength(1);
  });

  it('fails on an adb address it cannot read, naming the variable, and exits 2 as for any configuration error', async () => {
    const run = await runAgent(['doctor'], env({ ADB_SERVER_SOCKET: 'localhost:5037' }));
    expect(run.code, run.stdout).toBe(2);
    const { line, advice } = lineWith(run.stdout, 'adb server address');
    expect(line).toBe(
      '[FAIL] adb server address: ADB_SERVER_SOCKET: must be tcp:HOST:PORT with a port from 1 to 65535, e.g. tcp:127.0.0.1:5037; got "localhost:5037"',
    );
    expect(advice).toMatch(/ADB_SERVER_SOCKET=tcp:HOST:PORT/);
    expect(lineWith(run.stdout, '[ OK ]').line).toMatch(/\bcloud\b/);
  });

  it('with a wrong API key fails naming the credentials, never printing the key', async () => {
    const wrongKey = 'wrong-key-7f3a9c2e51';
    const run = await runAgent(['doctor', '--log-format', 'json', '--log-level', 'trace'], env({ DEVICE_AGENT_API_KEY: wrongKey }));
    expect(run.code).toBe(1);
    const { line, advice } = lineWith(run.stdout, `cloud ${baseUrl}`);
    expect(line).toMatch(/^\[FAIL\] .*rejected the credentials of .*HTTP 401; API key from DEVICE_AGENT_API_KEY/);
    expect(advice).toMatch(/DEVICE_AGENT_USERNAME/);
    expect(advice).toMatch(/DEVICE_AGENT_API_KEY/);
    const everything = run.stdout + run.stderr;
    expect(everything).not.toContain(wrongKey);
    expect(everything).not.toContain(Buffer.from(`${cloud.username}:${wrongKey}`).toString('base64'));
    // Logs stay JSON on stderr; stdout holds only the checklist.
    for (const l of run.stdout.trim().split('\n')) expect(l).toMatch(/^(\[( OK |WARN|FAIL| -- )\] | {7}-> |.* checks\.$|All \d+ checks passed\.$)/);
    const logs = run.stderr.split('\n').filter(Boolean);
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) expect(JSON.parse(l)).toHaveProperty('level');
  });

  it('says which file the API key came from, never the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doctor-key-'));
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, `${cloud.apiKey}\n`, { mode: 0o600 });
    const run = await runAgent(['doctor', '--json'], env({ DEVICE_AGENT_API_KEY: '', DEVICE_AGENT_API_KEY_FILE: keyFile }));
    expect(run.code, run.stdout).toBe(0);
    expect(checkOf(run.stdout, 'config').finding).toMatch(new RegExp(`cloud settings: .*API key from ${keyFile}$`));
    expect(run.stdout + run.stderr).not.toContain(cloud.apiKey);
  });

  it('fails on a cloud clock 10 minutes off, naming the skew', async () => {
    cloud.setClockOffset(10 * 60_000);
    try {
      const run = await runAgent(['doctor'], env());
      expect(run.code).toBe(1);
      const { line, advice } = lineWith(run.stdout, 'clock');
      expect(line).toMatch(/^\[FAIL\] clock: this host is 10 min behind the cloud/);
      expect(advice).toMatch(/time sync/);
    } finally {
      cloud.setClockOffset(0);
    }
  });

  it('warns on a clock a minute off, and does not fail for it', async () => {
    cloud.setClockOffset(-60_000);
    try {
      const run = await runAgent(['doctor'], env());
      expect(run.code, run.stdout).toBe(0);
      expect(lineWith(run.stdout, 'clock').line).toMatch(/^\[WARN\] clock: this host is (59|60|61) s ahead of the cloud/);
    } finally {
      cloud.setClockOffset(0);
    }
  });

  it('with power cycling on, fails on a uhubctl it cannot find, saying to install it, and passes once the tool is there', async () => {
    const missing = await runAgent(
      ['doctor'],
      env({ DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true', DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: 'uhubctl-not-installed' }),
    );
    expect(missing.code, missing.stdout + missing.stderr).toBe(1);
    const { line, advice } = lineWith(missing.stdout, 'hub tool');
    expect(line).toBe('[FAIL] hub tool uhubctl-not-installed (recovery.powerCycleCommand, for recovery.powerCycle): uhubctl-not-installed is not on PATH');
    expect(advice).toMatch(/set recovery\.powerCycleCommand to a program this host can run/);
    const standIn = fileURLToPath(new URL('../hub/uhubctl', import.meta.url));
    const found = await runAgent(['doctor', '--json'], env({ DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true', DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn }));
    expect(checkOf(found.stdout, 'hub.tool')).toEqual({
      id: 'hub.tool',
      status: 'ok',
      finding: `hub tool ${standIn} (recovery.powerCycleCommand, for recovery.powerCycle): ${standIn}`,
    });
  });

  it('warns when the adb on PATH is another version than the server, which it would kill', async () => {
    // A stand-in adb that prints what Ubuntu 20.04's adb prints (fixture).
    const bin = mkdtempSync(join(tmpdir(), 'doctor-adb-'));
    const output = readFileSync(join(import.meta.dirname, '../doctor/fixtures/adb-version/ubuntu-20.04.txt'), 'utf8');
    writeFileSync(join(bin, 'adb'), `#!/bin/sh\ncat <<'EOF'\n${output}EOF\n`, { mode: 0o755 });
    const run = await runAgent(['doctor'], env({ PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` }));
    expect(run.code, run.stdout).toBe(0);
    const { line, advice } = lineWith(run.stdout, 'adb command');
    expect(line).toMatch(/^\[WARN\] adb command \/usr\/lib\/android-sdk\/platform-tools\/adb is 1\.0\.39, 1:8\.1\.0\+r23-5ubuntu2 but the server is 1\.0\.41/);
    expect(advice).toMatch(/same adb version/);
  });

  it('fails without cloud settings but still checks adb, and exits 2: once and run would refuse to start; no "valid" line beside it', async () => {
    const [run, json] = await Promise.all([
      runAgent(['doctor'], env({ DEVICE_AGENT_USERNAME: '' })),
      runAgent(['doctor', '--json'], env({ DEVICE_AGENT_USERNAME: '' })),
    ]);
    expect(run.code, run.stdout).toBe(2);
    expect(lineWith(run.stdout, 'cloud settings').line).toMatch(/^\[FAIL\] cloud settings: username \(DEVICE_AGENT_USERNAME\)/);
    expect(run.stdout.split('\n')[0]).toMatch(/^\[FAIL\] cloud settings/);
    expect(run.stdout).not.toMatch(/configuration valid/);
    expect(lineWith(run.stdout, '[ OK ]').line).toMatch(/\badb server\b/);
    expect(json.code).toBe(2);
    expect(checkOf(json.stdout, 'config')).toMatchObject({ status: 'fail', config: true, finding: expect.stringMatching(/^cloud settings: username/) });
  });
});

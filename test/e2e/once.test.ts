import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentVersion } from '../../src/util/package.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer, freePort } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { baseEnv, runAgent, startAgent } from './agent-process.js';

// `once` end to end: the real adb server with simulated devices attached over
// TCP, the compiled CLI in its own process, and the cloud double on loopback.

const adb = new AdbServer();
const cloud = new CloudDouble();
const pixel = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PIXEL8PRO0001') });
const locked = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'LOCKED0002'), mode: 'unauthorized' });
const silent = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'SILENT0003'), mode: 'offline' });
// The same phone reached a second way (as over USB and over adb connect at once).
const twin = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PIXEL8PRO0001') });
let baseUrl = '';
const serials: Record<string, string> = {};

beforeAll(async () => {
  await adb.start();
  baseUrl = await cloud.start();
  for (const [name, device] of Object.entries({ pixel, locked, silent, twin })) {
    const port = await device.start();
    serials[name] = `127.0.0.1:${port}`;
    await adb.connect(port, { wait: false });
  }
  await adb.waitForStates(
    new Map([
      [serials.pixel!, 'device'],
      [serials.locked!, 'unauthorized'],
      [serials.silent!, 'offline'],
      [serials.twin!, 'device'],
    ]),
    20_000,
  );
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([pixel.stop(), locked.stop(), silent.stop(), twin.stop(), cloud.stop()]);
});

/** The JSON log lines of a run's stderr. */
function logLines(stderr: string): Array<Record<string, unknown>> {
  return stderr.split('\n').flatMap((l) => (l.startsWith('{') ? [JSON.parse(l) as Record<string, unknown>] : []));
}

function env(extra: Record<string, string> = {}) {
  return baseEnv({
    ...adb.env,
    DEVICE_AGENT_BASE_URL: baseUrl,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    ...extra,
  });
}

describe('once --dry-run', () => {
  it('prints exactly the PUT /devices body and sends nothing', async () => {
    cloud.clearRequests();
    pixel.resetCounts();
    const run = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_NODE_ID: 'lab-node-1' }));
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(Object.keys(body).sort()).toEqual(['devices', 'machine', 'nodeId']);
    expect(body.nodeId).toBe('lab-node-1');
    expect(cloud.putRequests()).toHaveLength(0);

    const m = body.machine;
    for (const key of ['hostname', 'arch', 'platform', 'type', 'version', 'buildNumber']) expect(typeof m[key], key).toBe('string');
    for (const key of ['freemem', 'totalmem', 'uptime']) expect(Number.isInteger(m[key]), key).toBe(true);
    expect(m.freemem).toBeLessThanOrEqual(m.totalmem);
    expect(m.version).toBe(agentVersion);
    expect(Object.keys(m.network).sort()).toEqual(['address', 'cidr', 'family', 'internal', 'mac', 'netmask']);

    const byUdid = new Map(body.devices.map((d: { udid: string }) => [d.udid, d]));
    // Four adb entries, one device: the twin is the same phone, and the
    // network devices that never said who they are are left out (below).
    expect(body.devices).toHaveLength(1);
    expect(byUdid.size).toBe(1);
    const ready = byUdid.get('PIXEL8PRO0001') as Record<string, unknown>;
    expect(ready).toMatchObject({
      udid: 'PIXEL8PRO0001',
      serialNumber: 'PIXEL8PRO0001',
      state: 'device',
      platformName: 'ANDROID',
      platformVersion: '16',
      modelName: 'Pixel 8 Pro',
      brandName: 'google',
      cpuArchitecture: 'arm64-v8a',
      isAndroid: true,
      isIos: false,
    });
    expect(typeof ready.deviceName).toBe('string');
    expect(typeof ready.status).toBe('string');

    // Not-ready network devices never answered a shell, so adb's HOST:PORT is
    // all that names them: one rule for every state, left out (a HOST:PORT
    // record would stand beside the same phone's real udid), each with one
    // log line saying what to do.
    const leftOut = (serial: string) => run.stderr.split('\n').filter((l) => l.includes(`network device ${serial} is`));
    expect(leftOut(serials.locked!)).toHaveLength(1);
    expect(leftOut(serials.locked!)[0]).toMatch(/unauthorized.*left out.*USB debugging/);
    expect(leftOut(serials.silent!)).toHaveLength(1);
    // A phone on TCP is sent to its network and to adb connect, not to a USB cable (docs/design/statements.md).
    expect(leftOut(serials.silent!)[0]).toMatch(/offline.*left out.*adb connect/i);

    expect(pixel.shellSessions).toBeLessThanOrEqual(2);
    expect(pixel.shellSessions).toBeGreaterThanOrEqual(1);
  });

  it('without an adb server prints nothing, exits 1 as once and list do, and says how to start adb in one line', async () => {
    const run = await runAgent(['once', '--dry-run'], baseEnv({ ADB_SERVER_SOCKET: 'tcp:127.0.0.1:1' }));
    expect(run.code, run.stderr).toBe(1);
    // No body: once would send none, and an empty device list would read as an empty lab.
    expect(run.stdout).toBe('');
    const errors = logLines(run.stderr).filter((l) => l.level === 'error');
    expect(errors.map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^no adb server at tcp:127\.0\.0\.1:1 \(ADB_SERVER_SOCKET\).*adb start-server.*\. No Android device is listed\. Nothing is printed: once would send nothing/,
      ),
    ]);
  });
});

describe('once', () => {
  it('sends one PUT /devices that the cloud stores, and exits 0', async () => {
    cloud.clearRequests();
    const run = await runAgent(['once'], env());
    expect(run.code, run.stderr).toBe(0);
    const puts = cloud.putRequests();
    expect(puts).toHaveLength(1);
    const body = puts[0]!.body as { nodeId: string; devices: { udid: string }[] };
    expect(body.devices.map((d) => d.udid)).toEqual(['PIXEL8PRO0001']);
    expect(run.stdout).toBe('');
    expect(run.stdout + run.stderr).not.toContain(cloud.apiKey);
  });

  it('keeps the generated node id across runs', async () => {
    const e = env();
    cloud.clearRequests();
    await runAgent(['once'], e);
    await runAgent(['once'], e);
    const ids = cloud.putRequests().map((r) => (r.body as { nodeId: string }).nodeId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
  });

  it('exits 3 and logs each failed device with its udid and message', async () => {
    cloud.failDevices([{ udid: 'PIXEL8PRO0001', message: 'missing required capability: resolution' }]);
    try {
      const run = await runAgent(['once'], env());
      expect(run.code, run.stderr).toBe(3);
      const line = run.stderr.split('\n').find((l) => l.includes('PIXEL8PRO0001') && l.includes('missing required capability'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!).level).toBe('warn');
    } finally {
      cloud.clearFailedDevices();
    }
  });

  it('without an adb server sends nothing and exits 1: the cloud keeps the phones an earlier run reported', async () => {
    const e = env();
    expect((await runAgent(['once'], e)).code).toBe(0);
    const online = () => cloud.devices().find((d) => d.info.udid === 'PIXEL8PRO0001')?.isOnline;
    expect(online()).toBe(true);
    cloud.clearRequests();
    // The same host (node id, state directory) with its adb server gone: a report without its phones would
    // tell a cloud that takes a host's report as its whole list that they are gone (the double marks them offline).
    const run = await runAgent(['once'], { ...e, ADB_SERVER_SOCKET: 'tcp:127.0.0.1:1' });
    expect(run.code, run.stderr).toBe(1);
    expect(cloud.putRequests()).toHaveLength(0);
    expect(online()).toBe(true);
    expect(run.stdout).toBe('');
    const errors = logLines(run.stderr).filter((l) => l.level === 'error');
    expect(errors.map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^no adb server at tcp:127\.0\.0\.1:1 \(ADB_SERVER_SOCKET\) \(ECONNREFUSED\); start one with "adb start-server".*\. No Android device is listed\. Nothing was sent: a report without those devices would tell the cloud they are gone\.$/,
      ),
    ]);
  });

  it('beside a daemon on its state directory sends nothing, exit 1, and says how to make the daemon report; --dry-run still prints; the daemon gone, it sends', async () => {
    const e = env({ DEVICE_AGENT_JITTER_SECONDS: '0', DEVICE_AGENT_SCHEDULE: '0 0 1 1 *' });
    const daemon = startAgent(['run'], e);
    try {
      await daemon.waitForLog((l) => l.msg === 'report delivered', 30_000);
      const pid = daemon.child.pid!;
      const run = await runAgent(['once'], e);
      expect(run.code, run.stderr).toBe(1);
      const errors = logLines(run.stderr).filter((l) => l.level === 'error');
      expect(errors.map((l) => l.msg)).toEqual([
        `the daemon (pid ${pid}) reports this host's phones from this state directory: a second report would tell the cloud another reading under its node id. Nothing was sent; a SIGHUP makes it report now (systemctl reload device-agent; in a container, podman kill --signal HUP CONTAINER, or docker kill), and once --dry-run prints what this run would send`,
      ]);
      // It read no phone: its only lines are the setup's and this one.
      expect(run.stderr).not.toContain('PIXEL8PRO0001');
      const dry = await runAgent(['once', '--dry-run'], e);
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout).devices.map((d: { udid: string }) => d.udid)).toContain('PIXEL8PRO0001');
    } finally {
      await daemon.stop();
    }
    // Its state file stays, naming a process that is gone: no daemon.
    cloud.clearRequests();
    const after = await runAgent(['once'], e);
    expect(after.code, after.stderr).toBe(0);
    expect(cloud.putRequests()).toHaveLength(1);
  });

  it('exits 1 when the report cannot be delivered', async () => {
    const port = await freePort();
    const run = await runAgent(['once'], env({ DEVICE_AGENT_BASE_URL: `http://127.0.0.1:${port}/v1` }));
    expect(run.code, run.stderr).toBe(1);
    // The error names the address and what failed; the line says nothing went out and where to look.
    expect(run.stderr).toMatch(
      new RegExp(
        `"report not delivered: PUT /devices: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}.*\\. Nothing went out; device-agent doctor checks the settings and the way to the cloud from this host"`,
      ),
    );
  });

  // A one-shot says within seconds that the cloud cannot be reached: one attempt, one line; retrying is the daemon's.
  // Its bound on the clock is test/cli/once-cloud.test.ts's; the bound here is generous, the attempts exact.
  describe('a cloud that cannot be reached (issue 70)', () => {
    const cloudLines = (stderr: string) => logLines(stderr).filter((l) => String(l.msg).includes('PUT /devices'));

    it.each([
      ['refused', async () => `http://127.0.0.1:${await freePort()}/v1`, /ECONNREFUSED/],
      ['a host that does not resolve', async () => 'https://no-such-host.invalid/v1', /ENOTFOUND|EAI_AGAIN|no answer within 8000 ms/],
    ])('%s: one attempt, one line, exit 1', async (_, url, reason) => {
      const started = Date.now();
      const run = await runAgent(['once'], env({ DEVICE_AGENT_BASE_URL: await url() }));
      expect(run.code, run.stderr).toBe(1);
      expect(cloudLines(run.stderr).map((l) => [l.level, l.msg])).toEqual([['error', expect.stringMatching(reason)]]);
      expect(Date.now() - started).toBeLessThan(30_000);
    });

    it('no answer: the one attempt ends at 8 s, though the request timeout is 30 s', async () => {
      cloud.delayNext(40_000, 1, { method: 'PUT' });
      const run = await runAgent(['once'], env({ DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '30' }));
      expect(run.code, run.stderr).toBe(1);
      expect(cloudLines(run.stderr).map((l) => [l.level, l.msg])).toEqual([
        ['error', expect.stringMatching(/PUT \/devices: .*no answer within 8000 ms\)\. Nothing went out/)],
      ]);
      cloud.resetFaults();
    });
  });

  it('exits 1 on rejected credentials, naming them in one line of sentences, with one request only', async () => {
    cloud.clearRequests();
    const run = await runAgent(['once'], env({ DEVICE_AGENT_API_KEY: 'wrong-key-123456' }));
    expect(run.code).toBe(1);
    const errors = logLines(run.stderr).filter((l) => l.level === 'error');
    // The cause's own sentence ends with its period, and the line goes on after it (it read "account).; nothing went out").
    expect(errors.map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^report not delivered: PUT \/devices: the cloud rejected the credentials \(401 Unauthorized\)\. Check DEVICE_AGENT_USERNAME .*DEVICE_AGENT_API_KEY.* account\)\. Nothing went out; device-agent doctor checks/,
      ),
    ]);
    expect(run.stderr).not.toContain('wrong-key-123456');
    expect(cloud.putRequests()).toHaveLength(1);
  });

  it('a mistyped DEVICE_AGENT_HIDDEN_DEVICES: refused when space-separated (exit 2), and a udid no phone has said once (issue 61)', async () => {
    const spaced = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_HIDDEN_DEVICES: 'PIXEL8PRO0001 NOSUCHPHONE1' }));
    expect(spaced.code, spaced.stderr).toBe(2);
    expect(spaced.stdout).toBe('');
    expect(spaced.stderr).toMatch(
      /hiddenDevices \(DEVICE_AGENT_HIDDEN_DEVICES\): "PIXEL8PRO0001 NOSUCHPHONE1" holds a space, which no udid does: separate the udids with commas/,
    );
    const run = await runAgent(['once', '--dry-run'], env({ DEVICE_AGENT_HIDDEN_DEVICES: 'PIXEL8PRO0001,NOSUCHPHONE1' }));
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout) as { devices: Array<{ udid: string; isHidden: boolean }> };
    expect(body.devices.map((d) => `${d.udid}:${d.isHidden}`)).toEqual(['PIXEL8PRO0001:true']);
    const said = logLines(run.stderr).filter((l) => String(l.msg).startsWith('hiddenDevices'));
    expect(said.map((l) => [l.level, l.msg])).toEqual([
      [
        'warn',
        expect.stringMatching(
          /^hiddenDevices \(DEVICE_AGENT_HIDDEN_DEVICES\) names NOSUCHPHONE1, which no device on this host has \(1 listed\): it hides nothing here/,
        ),
      ],
    ]);
  });

  it('exits 2 on a configuration error, naming the setting', async () => {
    const bad = await runAgent(['once'], env({ DEVICE_AGENT_PROBE_CONCURRENCY: '0' }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/probeConcurrency \(DEVICE_AGENT_PROBE_CONCURRENCY\): must be at least 1/);
    const noUrl = await runAgent(['once'], env({ DEVICE_AGENT_BASE_URL: '' }));
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/DEVICE_AGENT_BASE_URL/);
    const usage = await runAgent(['twice'], env());
    expect(usage.code).toBe(2);
  });
});

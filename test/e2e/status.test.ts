import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { AdbServer, freePort } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { type AgentProcess, daemonEnv, runAgent, startAgent } from './agent-process.js';
import { checkOf } from './doctor-checks.js';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemTool } from '../support/system-tool.js';

// /healthz and /metrics of a running daemon, read over real HTTP.

const adb = new AdbServer();
const cloud = new CloudDouble();
const ready = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'STAT0001') });
const locked = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'STAT0002'), mode: 'unauthorized' });
let agent: AgentProcess;
let agentEnv: Record<string, string>;
let statusUrl = '';

beforeAll(async () => {
  await adb.start();
  await cloud.start();
  await adb.connect(await ready.start());
  await adb.connect(await locked.start(), { wait: false });
  await adb.waitForState(`127.0.0.1:${locked.port}`, 'unauthorized', 20_000);
  cloud.failDevices([{ udid: 'STAT0001', message: 'missing required capability: battery' }]);
  agentEnv = daemonEnv(adb.env, cloud, {
    DEVICE_AGENT_SCHEDULE: '0 0 * * *',
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
  });
  agent = startAgent(['run'], agentEnv);
  const line = await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
  statusUrl = `http://${String(line.listen)}`;
});

afterAll(async () => {
  await agent.stop();
  await adb.stop();
  await Promise.all([ready.stop(), locked.stop(), cloud.stop()]);
});

const get = async (path: string) => {
  const res = await fetch(statusUrl + path);
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
};

describe('status endpoint', () => {
  it('serves metrics in Prometheus text format after a report', async () => {
    await agent.waitForLog((l) => l.msg === 'report delivered');
    const { status, text, type } = await get('/metrics');
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toMatch(/^device_agent_devices\{state="device"\} 1$/m);
    expect(text).toMatch(/^device_agent_devices\{state="unauthorized"\} 1$/m);
    expect(text).toMatch(/^device_agent_reports_total\{result="delivered"\} [1-9]/m);
    expect(text).toMatch(/^device_agent_last_success_timestamp_seconds \d+(\.\d+)?$/m);
    expect(text).toMatch(/^device_agent_failed_device\{udid="STAT0001"\} 1$/m);
    expect(text).toMatch(/^device_agent_adb_tracker_up 1$/m);
    expect(text).toMatch(/^device_agent_adb_roundtrip_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    // One ready device, one inventory so far: one shell session.
    expect(text).toMatch(/^device_agent_shell_sessions_total 1$/m);
    expect(text).toMatch(/^device_agent_shell_bytes_read_total [1-9]\d*$/m);
    expect(text).not.toContain(cloud.apiKey);
  });

  it('passes promtool check metrics with the process series, and no value carries digits past what a double holds (issue 61)', async () => {
    await agent.waitForLog((l) => l.msg === 'report delivered');
    const { text } = await get('/metrics');
    // The series every Prometheus client library exports, and Node.js's own (prom-client's).
    for (const name of [
      'process_start_time_seconds',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_open_fds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(text).toMatch(new RegExp(`^${name} [0-9.e+]+$`, 'm'));
    // The agent's own: a device's info keeps what it is, its state is a series of its own.
    expect(text).toMatch(
      /^device_agent_device_info\{udid="STAT0001",serial="127\.0\.0\.1:\d+",model="Pixel 8 Pro",platform="Android",os_version="\d+",usb="",hub="",hub_port="",product="[^"]*"\} 1$/m,
    );
    expect(text).toMatch(/^device_agent_device_state\{udid="STAT0001",state="device"\} 1$/m);
    const noisy = text
      .split('\n')
      .filter((l) => /^(device_agent|process)_/.test(l))
      .filter((l) => significantDigits(l.slice(l.lastIndexOf(' ') + 1)) > 15);
    expect(noisy).toEqual([]);
    const check = await promtoolCheckMetrics(text);
    expect(check, check.output).toEqual({ code: 0, output: '' });
  });

  it('is healthy after a report, and 503 with the reason when adb goes away', async () => {
    await agent.waitForLog((l) => l.msg === 'report delivered');
    expect((await get('/healthz')).status).toBe(200);
    await adb.kill();
    await agent.waitForLog((l) => String(l.msg).includes('adb device tracking ended'));
    const down = await get('/healthz');
    expect(down.status).toBe(503);
    // Tracking ended; once the reconnect finds nothing listening, the server is named (a daemon started without one: below).
    expect(down.text).toMatch(/adb device tracking is down|adb server not answering/);
    await adb.restart();
    await agent.waitForLog((l) => String(l.msg).includes('adb server is reachable again'), 20_000);
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/nowhere')).status).toBe(404);
  });
});

describe('doctor and the agent answering on the status port (issue 61)', () => {
  it("fails when the agent there is not this host's (its node id), and passes for this host's own", async () => {
    const listen = statusUrl.replace('http://', '');
    const statusLine = (run: { stdout: string }) => run.stdout.split('\n').find((l) => l.includes('status endpoint'));
    // Another checkout on this host: its own state directory, which keeps no node id yet, or one of its own.
    const [fresh, other, own] = await Promise.all([
      runAgent(['doctor'], daemonEnv(adb.env, cloud, { DEVICE_AGENT_STATUS_LISTEN: listen })),
      runAgent(['doctor'], daemonEnv(adb.env, cloud, { DEVICE_AGENT_STATUS_LISTEN: listen, DEVICE_AGENT_NODE_ID: 'other-lab-host' })),
      runAgent(['doctor', '--json'], agentEnv),
    ]);
    expect(statusLine(fresh)).toMatch(
      /^\[FAIL\] status endpoint: another device-agent answers on http:\/\/127\.0\.0\.1:\d+: its node id is [0-9a-f-]{36}, and this configuration keeps none yet/,
    );
    expect(fresh.code, fresh.stdout).toBe(1);
    expect(statusLine(other)).toMatch(
      /: its node id is [0-9a-f-]{36}, not this host's other-lab-host \(DEVICE_AGENT_NODE_ID\): another checkout or state directory holds the port/,
    );
    expect(checkOf(own.stdout, 'status-endpoint')).toMatchObject({
      status: expect.stringMatching(/^(ok|warn)$/),
      finding: expect.stringMatching(/^status endpoint: the agent answers on http:\/\/127\.0\.0\.1:\d+/),
    });
  }, 60_000);
});

describe('a daemon started with no adb server (issue 61)', () => {
  it('says the adb server is down in /healthz and the metrics, with a failed Android collect, not an empty lab; healthy once the server comes', async () => {
    const port = await freePort();
    const late = new AdbServer({ port });
    const adbEnv = { ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` };
    const daemon = startAgent(['run'], daemonEnv(adbEnv, cloud, { DEVICE_AGENT_SCHEDULE: '0 0 * * *', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' }));
    try {
      const line = await daemon.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
      const at = (path: string) => fetch(`http://${String(line.listen)}${path}`).then(async (r) => ({ status: r.status, text: await r.text() }));
      // The start report goes after its wait for a first listing (10 s), with none.
      await daemon.waitForLog((l) => l.msg === 'report delivered', 30_000);
      const metrics = (await at('/metrics')).text;
      expect(metrics).toMatch(/^device_agent_adb_server_up 0$/m);
      expect(metrics).toMatch(/^device_agent_source_collect_success\{source="android"\} 0$/m);
      const health = await at('/healthz');
      expect(health.status).toBe(503);
      expect(health.text).toMatch(/^unhealthy: adb server not answering(;|$)/);
      // The tracker's line says it once; the reports meanwhile add no line of their own.
      expect(daemon.logs().filter((l) => String(l.msg).startsWith('no adb server at'))).toHaveLength(1);
      expect(daemon.logs().filter((l) => String(l.msg).startsWith('collecting the android devices failed'))).toEqual([]);

      const delivered = () => daemon.logs().filter((l) => l.msg === 'report delivered').length;
      const before = delivered();
      await late.start();
      await daemon.waitForLog((l) => String(l.msg).includes('adb server is reachable again'), 30_000);
      // A report made once adb has listed (none of its own phones here) makes the host healthy.
      await waitUntil(async () => delivered() > before && (await at('/healthz')).status === 200, 30_000);
      const after = (await at('/metrics')).text;
      expect(after).toMatch(/^device_agent_adb_server_up 1$/m);
      expect(after).toMatch(/^device_agent_source_collect_success\{source="android"\} 1$/m);
    } finally {
      await daemon.stop();
      await late.stop();
    }
  }, 90_000);
});

describe('a key the cloud stops taking (issue 61)', () => {
  it('/healthz says 503 naming the refused credentials from the first refusal, and 200 once a report is delivered again', async () => {
    const own = new CloudDouble();
    await own.start();
    const daemon = startAgent(['run'], daemonEnv(adb.env, own, { DEVICE_AGENT_SCHEDULE: '0 0 * * *', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' }));
    try {
      const line = await daemon.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)');
      const healthz = () => fetch(`http://${String(line.listen)}/healthz`).then(async (r) => ({ status: r.status, text: await r.text() }));
      await daemon.waitForLog((l) => l.msg === 'report delivered', 30_000);
      await waitUntil(async () => (await healthz()).status === 200, 20_000);
      // The key is revoked: every PUT from now on is answered 401.
      own.failNext({ status: 401, method: 'PUT', times: Infinity });
      daemon.child.kill('SIGHUP');
      const refused = await daemon.waitForLog((l) => String(l.msg).startsWith('report not delivered'), 20_000);
      expect(refused).toMatchObject({ level: 'error', failures: 1 });
      expect(String(refused.msg)).toMatch(
        /^report not delivered: PUT \/devices: the cloud rejected the credentials \(401 Unauthorized\)\. .*\. Fix the setting it names and restart the agent/,
      );
      expect(await healthz()).toEqual({
        status: 503,
        text: 'unhealthy: cloud refused the credentials (HTTP 401): fix DEVICE_AGENT_USERNAME or the API key and restart the agent\n',
      });
      own.resetFaults();
      const before = daemon.logs().filter((l) => l.msg === 'report delivered').length;
      daemon.child.kill('SIGHUP');
      await waitUntil(async () => daemon.logs().filter((l) => l.msg === 'report delivered').length > before, 20_000);
      expect((await healthz()).status).toBe(200);
    } finally {
      await daemon.stop();
      await own.stop();
    }
  }, 90_000);
});

describe('a status port held by another program (issue 33, finding 7)', () => {
  it('the daemon says so in one line and keeps reporting; doctor fails naming the daemon and why, though the other program answers 200', async () => {
    // Another program on the port that answers /healthz with 200: a post-check reading only the status code would pass.
    const holder = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n'));
    const port = await new Promise<number>((r) => holder.listen(0, '127.0.0.1', () => r((holder.address() as AddressInfo).port)));
    const env = daemonEnv(adb.env, cloud, { DEVICE_AGENT_SCHEDULE: '0 0 * * *', DEVICE_AGENT_STATUS_LISTEN: `127.0.0.1:${port}` });
    const second = startAgent(['run'], env);
    try {
      const line = await second.waitForLog((l) => String(l.msg).startsWith('the status endpoint cannot listen'));
      expect(line.level).toBe('error');
      expect(String(line.msg)).toContain(`cannot listen on 127.0.0.1:${port}: the port is held by another process`);
      await second.waitForLog((l) => l.msg === 'report delivered', 30_000);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const doctor = await runAgent(['doctor'], env);
      const status = doctor.stdout.split('\n').find((l) => l.includes('status endpoint'));
      expect(status?.replace(/ since \S+Z:/, ' since T:')).toBe(
        `[FAIL] status endpoint: the daemon (pid ${second.child.pid}) cannot listen on 127.0.0.1:${port} since T: the port is held by another process (see which: ss -ltnp 'sport = :${port}'); /healthz and /metrics are off`,
      );
      expect(doctor.code, doctor.stdout).toBe(1);
      expect(second.logs().filter((l) => String(l.msg).startsWith('the status endpoint cannot listen'))).toHaveLength(1);
    } finally {
      await second.stop();
      await new Promise((r) => holder.close(r));
    }
  }, 90_000);
});

async function waitUntil(ok: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Significant digits of a sample value as written: 0.24376287299999969 has 17. */
function significantDigits(value: string): number {
  const mantissa = value.replace(/^-/, '').split(/e/i)[0]!.replace('.', '');
  return mantissa.replace(/^0+/, '').length;
}

/** promtool check metrics on a scrape (Debian's prometheus package), as a Prometheus operator runs it. */
function promtoolCheckMetrics(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(systemTool(process.env.PROMTOOL_BIN ?? 'promtool'), ['check', 'metrics']);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { AgentProcess, baseEnv, startAgent } from './agent-process.js';

// The daemon end to end: `device-agent run` in its own process against the
// real adb server with simulated devices and the cloud double.

const adb = new AdbServer();
const cloud = new CloudDouble();
const devices: SimDevice[] = [];
let baseUrl = '';
let agent: AgentProcess | undefined;

beforeAll(async () => {
  await adb.start();
  baseUrl = await cloud.start();
});

afterEach(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  agent = undefined;
  for (const d of devices.splice(0)) {
    await adb.disconnect(d.port).catch(() => undefined);
    await d.stop();
  }
  cloud.resetFaults();
  cloud.clearFailedDevices();
  cloud.clearRequests();
});

afterAll(async () => {
  await adb.stop();
  await cloud.stop();
});

async function plug(serial: string, mode: 'ready' | 'unauthorized' = 'ready'): Promise<SimDevice> {
  const device = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), serial), mode });
  devices.push(device);
  const port = await device.start();
  await adb.connect(port, { wait: false });
  await adb.waitForState(`127.0.0.1:${port}`, mode === 'ready' ? 'device' : 'unauthorized', 20_000);
  return device;
}

function start(extra: Record<string, string> = {}): AgentProcess {
  agent = startAgent(
    ['run'],
    baseEnv({
      ...adb.env,
      DEVICE_AGENT_BASE_URL: baseUrl,
      DEVICE_AGENT_USERNAME: cloud.username,
      DEVICE_AGENT_API_KEY: cloud.apiKey,
      DEVICE_AGENT_JITTER_SECONDS: '0',
      DEVICE_AGENT_SCHEDULE: '0 0 * * *',
      DEVICE_AGENT_STATUS_LISTEN: 'off',
      ...extra,
    }),
  );
  return agent;
}

type Body = { devices: Array<{ udid: string; status: string; state: string }> };
const bodyOf = (r: RecordedRequest): Body => r.body as Body;
const udids = (r: RecordedRequest) => bodyOf(r).devices.map((d) => d.udid).sort();

describe('run', () => {
  it('reports at start, and a plug and an unplug within 2 s; the unplugged device once as UNPLUGGED', async () => {
    await plug('RUNA0001');
    const a = start();
    const first = await cloud.waitForPut((r) => udids(r).includes('RUNA0001'));
    expect(bodyOf(first).devices[0]).toMatchObject({ udid: 'RUNA0001', state: 'device' });

    const plugged = await plug('RUNA0002');
    const pluggedAt = Date.now();
    const withNew = await cloud.waitForPut((r) => udids(r).includes('RUNA0002'), 5000);
    expect(withNew.receivedAt - pluggedAt).toBeLessThan(2000);

    const count = cloud.putRequests().length;
    await adb.disconnect(plugged.port);
    const unpluggedAt = Date.now();
    const gone = await cloud.waitForPut((r) => bodyOf(r).devices.some((d) => d.udid === 'RUNA0002' && d.status === 'UNPLUGGED'), 5000);
    expect(gone.receivedAt - unpluggedAt).toBeLessThan(2000);
    expect(cloud.putRequests().length).toBeGreaterThan(count);

    // The next report leaves it out.
    await plug('RUNA0003');
    const later = await cloud.waitForPut((r) => udids(r).includes('RUNA0003'), 5000);
    expect(udids(later)).not.toContain('RUNA0002');
    expect(a.stdout + a.stderr).not.toContain(cloud.apiKey);
  });

  it('gives one report for a flapping device, not one per flap', async () => {
    await plug('FLAP0001');
    start({ DEVICE_AGENT_CHANGE_DEBOUNCE_MS: '1000' });
    await cloud.waitForPut((r) => udids(r).includes('FLAP0001'));
    const device = devices[0]!;
    const before = cloud.putRequests().length;
    for (let i = 0; i < 4; i++) {
      device.setMode(i % 2 === 0 ? 'unauthorized' : 'ready');
      device.disconnect();
      await new Promise((r) => setTimeout(r, 150));
    }
    await new Promise((r) => setTimeout(r, 4000));
    const after = cloud.putRequests().length - before;
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(3);
  });

  it('stops cleanly on SIGTERM within 10 s, exit code 0', async () => {
    await plug('STOP0001');
    const a = start();
    await cloud.waitForPut((r) => udids(r).includes('STOP0001'));
    const t0 = Date.now();
    const result = await a.stop('SIGTERM', 12_000);
    expect(result.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(a.logs().some((l) => l.msg === 'device-agent stopped')).toBe(true);
  });

  it('lets an in-flight report finish on SIGTERM', async () => {
    await plug('STOP0002');
    cloud.setDelay(2000);
    const a = start();
    await a.waitForLog((l) => l.msg === 'device-agent started');
    await new Promise((r) => setTimeout(r, 500));
    const result = await a.stop('SIGTERM', 12_000);
    expect(result.code).toBe(0);
    expect(a.logs().some((l) => l.msg === 'report delivered')).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { NginxGateway } from '../proxies/nginx.js';
import { AdbServer, freePort } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';

// A lab's gateway in front of the cloud (issue 42, finding 10): Debian's nginx
// on loopback, proxying to the cloud double's port. While nothing listens
// there nginx answers its own HTML 502; once the cloud is up but slower than
// nginx's 1 s read timeout, its 504. Every report fails as "unavailable"
// either way, and the log used to say Bad Gateway for 10 minutes while the
// gateway was timing out: the 504s were "the same way" and went to debug.

const adb = new AdbServer();
const cloud = new CloudDouble();
const device = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'GWAY0001') });
let upstream = 0;
let gateway: NginxGateway;
let base = '';
let agent: AgentProcess | undefined;

beforeAll(async () => {
  await adb.start();
  await adb.connect(await device.start());
  await adb.waitForState(device.serial, 'device', 20_000);
  upstream = await freePort();
  gateway = new NginxGateway(upstream);
  base = await gateway.start();
});

afterAll(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  await gateway.stop();
  await cloud.stop();
  await adb.stop();
  await device.stop();
});

const notDelivered = (l: Record<string, unknown>) => String(l.msg).startsWith('report not delivered');
const logged = (l: Record<string, unknown>) => ['warn', 'error'].includes(String(l.level));

describe('a gateway in front of the cloud', () => {
  it('answers 502 while the cloud is down, then 504 while it is slow: one line for each way, naming the gateway and the hop behind it', async () => {
    agent = startAgent(
      ['run'],
      daemonEnv(
        adb.env,
        { url: `${base}/v1`, username: cloud.username, apiKey: cloud.apiKey },
        // A report every 2 s; the repeats of a way are at debug, counted here.
        { DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_LOG_LEVEL: 'debug' },
      ),
    );
    const a = agent;
    const failures = () => a.logs().filter(notDelivered);
    // The cloud down: three reports in a row get nginx's 502, from the first report on.
    await a.waitForLog(() => failures().length >= 3, 30_000);
    expect(failures().every((l) => /HTTP 502/.test(String(l.err)))).toBe(true);

    // The cloud up but slow: nginx times out behind, and answers 504.
    cloud.setDelay(3_000);
    await cloud.start(upstream);
    const from = failures().length;
    await a.waitForLog(
      () =>
        failures()
          .slice(from)
          .filter((l) => /HTTP 504/.test(String(l.err))).length >= 3,
      40_000,
    );

    cloud.setDelay(0);
    await a.waitForLog((l) => l.msg === 'report delivered', 30_000);

    const lines = failures().filter(logged);
    // One line when it starts (502), one when the way changes (504); every repeat at debug.
    expect(lines.map((l) => String(l.err).match(/HTTP 50\d/)?.[0])).toEqual(['HTTP 502', 'HTTP 504']);
    expect(String(lines[0]!.err)).toMatch(
      /HTTP 502 Bad Gateway from the gateway nginx\/1\.[\d.]+ in front of the cloud, not from the cloud's API: this host reaches the gateway, and the hop behind it failed \(it could not reach the cloud/,
    );
    expect(String(lines[1]!.err)).toMatch(
      /HTTP 504 Gateway Time-out from the gateway nginx\/1\.[\d.]+ in front of the cloud, not from the cloud's API: this host reaches the gateway, and the hop behind it failed \(the cloud did not answer it in time\)/,
    );
    expect(String(lines[1]!.msg)).toContain('it fails another way now: HTTP 504 from a gateway (before: HTTP 502 from a gateway)');
    // Nothing of nginx's HTML page reaches the log.
    expect(a.stdout + a.stderr).not.toMatch(/<html|<center>/i);
  }, 120_000);
});

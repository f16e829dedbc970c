// A cloud on loopback over plain http (a local tunnel, a test cloud) on a
// host whose environment sets http_proxy for every tool (issue 42): the
// compiled CLI in its own process, tinyproxy from Debian on loopback as that
// proxy. Plain http is allowed to loopback only because the request stays on
// the host; through the proxy the API key would reach it in clear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { Tinyproxy } from '../proxies/tinyproxy.js';
import { AdbServer } from '../sim/adb-server.js';
import { baseEnv, runAgent } from './agent-process.js';
import { checkOf } from './doctor-checks.js';

const adb = new AdbServer();
const cloud = new CloudDouble();
const proxy = new Tinyproxy();

beforeAll(async () => {
  await Promise.all([adb.start(), cloud.start(), proxy.start()]);
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([cloud.stop(), proxy.stop()]);
});

function env(): Record<string, string> {
  return baseEnv({
    ...adb.env,
    DEVICE_AGENT_BASE_URL: cloud.url,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    http_proxy: `http://127.0.0.1:${proxy.port}`,
  });
}

/**
 * What tinyproxy logged of requests it took (at LogLevel Info: "Request (file
 * descriptor N): PUT http://..."); a bare "Connect" is also the test's own
 * probe of its port at start.
 */
function requestsSeen(): string[] {
  return proxy.output.split('\n').filter((l) => /Request \(|PUT |GET |Authorization/i.test(l));
}

describe('a plain http cloud on loopback, with a host-wide http_proxy', () => {
  it('once reports direct: the proxy never sees the request with the key, and one line says why', async () => {
    cloud.clearRequests();
    const run = await runAgent(['once'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(cloud.putRequests().length).toBeGreaterThan(0);
    expect(requestsSeen()).toEqual([]);
    expect(proxy.output).not.toContain(cloud.apiKey);
    const said = run.stderr.split('\n').filter((l) => l.includes('not through'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`the cloud ${new URL(cloud.url).host} is reached direct, not through http://127.0.0.1:${proxy.port} (httpProxy`);
    expect(said[0]).toContain('plain http to loopback never goes through a proxy');
  });

  it('doctor says the route as it is taken: direct, past the proxy', async () => {
    const run = await runAgent(['doctor', '--json'], env());
    const host = new URL(cloud.url).host;
    expect(checkOf(run.stdout, 'proxy')).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining(`proxy: requests to ${host} go direct, not through http://127.0.0.1:${proxy.port} (httpProxy`),
    });
    expect(checkOf(run.stdout, 'cloud')).toMatchObject({
      status: 'ok',
      finding: expect.stringMatching(/^cloud http:\/\/127\.0\.0\.1:\d+\/v1 accepts the credentials/),
    });
    expect(requestsSeen()).toEqual([]);
  });
});

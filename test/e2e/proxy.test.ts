// A lab host whose only way out is an authenticating proxy (issue 26): the
// compiled CLI in its own process, the real adb server with a simulated phone,
// squid from Debian on loopback requiring Basic credentials, and the cloud
// double serving https under a name only squid resolves, with a certificate
// from a private CA the agent is given in caFile.
import { lookup } from 'node:dns/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { privateCa } from '../proxies/private-ca.js';
import { Squid } from '../proxies/squid.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { baseEnv, daemonEnv, runAgent, startAgent } from './agent-process.js';
import { checkOf } from './doctor-checks.js';

const NAME = 'cloud.lab.test';
const account = { user: 'lab-node-7', password: 'Pr0xy@pass:w/rd' };
const ca = privateCa('Device Agent Test Root CA');
const adb = new AdbServer();
const cloud = new CloudDouble({ tls: { key: ca.serverKey, cert: ca.serverCert }, urlHost: NAME });
const squid = new Squid({ auth: account, hosts: { [NAME]: '127.0.0.1' } });
// squid's stock rule: CONNECT to port 443 only; the cloud double listens elsewhere.
const stockSquid = new Squid({ hosts: { [NAME]: '127.0.0.1' }, connectOnly443: true });
const pixel = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PROXYPIXEL01') });
const caFile = join(mkdtempSync(join(tmpdir(), 'da-e2e-ca-')), 'lab-ca.pem');

beforeAll(async () => {
  writeFileSync(caFile, ca.caCert);
  await Promise.all([adb.start(), cloud.start(), squid.start(), stockSquid.start()]);
  const port = await pixel.start();
  await adb.connect(port, { wait: false });
  await adb.waitForStates(new Map([[`127.0.0.1:${port}`, 'device']]), 20_000);
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([pixel.stop(), cloud.stop(), squid.stop(), stockSquid.stop()]);
});

function env(proxy: string, extra: Record<string, string> = {}) {
  return baseEnv({
    ...adb.env,
    DEVICE_AGENT_BASE_URL: cloud.url,
    DEVICE_AGENT_USERNAME: cloud.username,
    DEVICE_AGENT_API_KEY: cloud.apiKey,
    DEVICE_AGENT_CA_FILE: caFile,
    HTTPS_PROXY: proxy,
    ...extra,
  });
}

const secretForms = [account.password, encodeURIComponent(account.password), Buffer.from(`${account.user}:${account.password}`).toString('base64')];
function expectNoProxyPassword(text: string): void {
  for (const form of secretForms) expect(text).not.toContain(form);
}

describe('a host whose only way out is an authenticating proxy', () => {
  it('cannot resolve the cloud itself', async () => {
    await expect(lookup(NAME)).rejects.toMatchObject({ code: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/) });
  });

  it('once reports through the proxy (HTTPS_PROXY with credentials, the CA in caFile)', async () => {
    cloud.clearRequests();
    const run = await runAgent(['once'], env(squid.url(account)));
    expect(run.code, run.stderr).toBe(0);
    const [put] = cloud.putRequests();
    expect((put?.body as { devices: { udid: string }[] }).devices.map((d) => d.udid)).toContain('PROXYPIXEL01');
    expect(squid.accessLog()).toMatch(new RegExp(`TCP_TUNNEL/200 \\d+ CONNECT ${NAME.replace(/\./g, '\\.')}:\\d+ ${account.user} `));
    expectNoProxyPassword(run.stdout + run.stderr);
  });

  it('doctor shows the proxy, opens the tunnel and trusts the private CA', async () => {
    const run = await runAgent(['doctor', '--json'], env(squid.url(account)));
    expect(run.code, run.stdout).toBe(0);
    const route = checkOf(run.stdout, 'proxy');
    expect(route.status).toBe('ok');
    expect(route.finding).toContain(`proxy: requests to ${NAME}:${new URL(cloud.url).port} go through http://127.0.0.1:${squid.port} (httpsProxy`);
    expect(route.finding).toContain(`as proxy user ${account.user}`);
    const tunnel = checkOf(run.stdout, 'proxy.tunnel');
    expect(tunnel.status).toBe('ok');
    expect(tunnel.finding).toMatch(/^proxy tunnel: http:\/\/127\.0\.0\.1:\d+ opened CONNECT/);
    expect(tunnel.finding).toContain(
      `; TLS through the proxy: ${NAME} presents a certificate issued by "O=Device Agent Tests, CN=Device Agent Test Root CA", trusted`,
    );
    expect(checkOf(run.stdout, 'cloud')).toMatchObject({
      status: 'ok',
      finding: expect.stringMatching(/^cloud https:\/\/cloud\.lab\.test:\d+\/v1 accepts the credentials/),
    });
    expectNoProxyPassword(run.stdout + run.stderr);
  });

  it('once with a wrong proxy password: exit 1 and one error line naming the proxy, no password', async () => {
    const wrong = squid.url({ user: account.user, password: 'Wr0ng@pass' });
    const run = await runAgent(['once'], env(wrong));
    expect(run.code).toBe(1);
    const errors = run.stderr.split('\n').filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`proxy http://127.0.0.1:${squid.port} refused the credentials of user ${account.user} (407 Proxy Authentication Required`);
    expect(errors[0]).toContain('check the user and password in httpsProxy');
    expect(run.stderr).not.toContain('"level":"warn"');
    expect(run.stderr).not.toContain('Wr0ng@pass');
    expect(run.stderr).not.toContain(encodeURIComponent('Wr0ng@pass'));
  });

  it('run: a proxy that refuses the tunnel (403) gives one line, the usual resend backoff, and the resend failing the same way at debug', async () => {
    cloud.clearRequests();
    const agent = startAgent(
      ['run'],
      daemonEnv(adb.env, cloud, { DEVICE_AGENT_CA_FILE: caFile, HTTPS_PROXY: stockSquid.url(), DEVICE_AGENT_LOG_LEVEL: 'debug' }),
    );
    try {
      const resend = /^report not delivered( \(2 in a row\))?; the current inventory is sent again in about (\d+) s, or with the next scheduled report$/;
      const first = await agent.waitForLog((l) => resend.test(String(l.msg)), 20_000);
      expect(String(first.err)).toMatch(
        new RegExp(`proxy http://127\\.0\\.0\\.1:${stockSquid.port} refused to open a tunnel to ${NAME.replace(/\./g, '\\.')}:\\d+ \\(403 Forbidden`),
      );
      expect(String(first.err)).toContain('allow CONNECT to');
      // The cloud backoff's first resend is 10-20 s away (20 s, jittered by half).
      const wait = Number(resend.exec(String(first.msg))![2]);
      expect(wait).toBeGreaterThanOrEqual(10);
      expect(wait).toBeLessThanOrEqual(20);
      // The resend fails the same way: at debug, not a second error line (a quiet log, issue 34).
      const again = await agent.waitForLog((l) => l.msg === 'report not delivered again, the same way', (wait + 30) * 1000);
      expect(again).toMatchObject({ level: 'debug', failures: 2 });
      const lines = agent.logs().filter((l) => l.level === 'warn' || l.level === 'error');
      expect(lines.map((l) => String(l.msg).replace(/\d+ s,/, 'N s,'))).toEqual([
        'report not delivered; the current inventory is sent again in about N s, or with the next scheduled report',
      ]);
    } finally {
      await agent.stop();
    }
    expect(cloud.putRequests()).toHaveLength(0);
  }, 90_000);
});

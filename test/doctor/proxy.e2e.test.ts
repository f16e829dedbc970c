// The doctor's look at the way to the cloud, against real squids on loopback
// and the cloud double serving https with a private CA's certificate; the
// cloud's name resolves only in squid's hosts file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planProxies, type ProxySettings } from '../../src/cloud/proxy/route.js';
import { loadTrust } from '../../src/cloud/trust/trust.js';
import type { CheckItem } from '../../src/doctor/checklist.js';
import { checkNetwork } from '../../src/doctor/proxy.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { privateCa } from '../proxies/private-ca.js';
import { Squid } from '../proxies/squid.js';
import { freePort } from '../sim/adb-server.js';

const NAME = 'cloud.lab.test';
const account = { user: 'doctor', password: 's3cret:pw' };
const cloudCa = privateCa('Device Agent Test Root CA');
const inspectingCa = privateCa('Corp TLS Inspection CA');
const cloud = new CloudDouble({ tls: { key: cloudCa.serverKey, cert: cloudCa.serverCert }, urlHost: NAME });
const inspected = new CloudDouble({ tls: { key: inspectingCa.serverKey, cert: inspectingCa.serverCert }, urlHost: NAME });
const squid = new Squid({ auth: account, hosts: { [NAME]: '127.0.0.1' } });
const caFile = join(mkdtempSync(join(tmpdir(), 'da-doctor-ca-')), 'ca.pem');

beforeAll(async () => {
  writeFileSync(caFile, cloudCa.caCert);
  await Promise.all([cloud.start(), inspected.start(), squid.start()]);
});

afterAll(async () => {
  await Promise.all([cloud.stop(), inspected.stop(), squid.stop()]);
});

function check(baseUrl: string, proxies: ProxySettings, env: NodeJS.ProcessEnv = {}): Promise<CheckItem[]> {
  const network = { proxies: planProxies(proxies), trust: loadTrust({ caFile, systemCa: false }, {}) };
  return checkNetwork(baseUrl, network, env, 3_000);
}

const findings = (items: CheckItem[]) => items.map((i) => `${i.status} ${i.finding}`);

describe('checkNetwork', () => {
  it('shows the proxy, the CAs, the tunnel and who issued the certificate; nothing reaches the cloud', async () => {
    const items = await check(cloud.url, { httpsProxy: squid.url(account) });
    const port = new URL(cloud.url).port;
    expect(findings(items)).toEqual([
      `ok proxy: requests to ${NAME}:${port} go through http://127.0.0.1:${squid.port} (httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)), as proxy user doctor`,
      expect.stringMatching(
        new RegExp(
          `^ok TLS trust: Node's roots \\(\\d+, NODE_EXTRA_CA_CERTS included\\), caFile ${caFile} \\(O=Device Agent Tests, CN=Device Agent Test Root CA\\)$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^ok proxy tunnel: http://127\\.0\\.0\\.1:${squid.port} opened CONNECT ${NAME}:${port} in \\d+ ms$`)),
      `ok TLS through the proxy: ${NAME} presents a certificate issued by "O=Device Agent Tests, CN=Device Agent Test Root CA", trusted`,
    ]);
    expect(cloud.requests).toHaveLength(0);
    expect(JSON.stringify(items)).not.toContain(account.password);
  });

  it('names the CA of a TLS-inspecting proxy that this host does not trust', async () => {
    const items = await check(inspected.url, { httpsProxy: squid.url(account) });
    const tls = items.at(-1)!;
    expect(tls.status).toBe('fail');
    expect(tls.finding).toMatch(
      /the certificate presented for cloud\.lab\.test is issued by "O=Device Agent Tests, CN=Corp TLS Inspection CA", which this host does not trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    );
    expect(tls.advice).toContain('caFile (DEVICE_AGENT_CA_FILE)');
  });

  it('fails the tunnel with the reason and the advice of the report path', async () => {
    const [, , tunnel] = await check(cloud.url, { httpsProxy: squid.url() });
    expect(tunnel).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(`proxy tunnel: proxy http://127.0.0.1:${squid.port} requires credentials (407`),
    });
    const down = await freePort();
    const [, , unreachable] = await check(cloud.url, { httpsProxy: `http://127.0.0.1:${down}` });
    expect(unreachable).toMatchObject({ status: 'fail', finding: `proxy tunnel: proxy http://127.0.0.1:${down} is not reachable (ECONNREFUSED)` });
  });

  it('says when NO_PROXY sends the cloud direct, and checks no tunnel', async () => {
    const items = await check(cloud.url, { httpsProxy: squid.url(account), noProxy: 'localhost, *.lab.test, bad/entry' });
    expect(findings(items)).toEqual([
      expect.stringMatching(/^ok proxy: requests to cloud\.lab\.test:\d+ go direct: noProxy entry "lab\.test" names it/),
      'warn proxy: noProxy entries that never match anything: bad/entry',
      expect.stringMatching(/^ok TLS trust:/),
    ]);
  });

  it('says when no proxy is set, and warns about NODE_USE_ENV_PROXY', async () => {
    const items = await check(cloud.url, {}, { NODE_USE_ENV_PROXY: '1' });
    expect(findings(items)[0]).toMatch(/^ok proxy: none set for cloud\.lab\.test:\d+ \(httpsProxy .*\); requests go direct$/);
    expect(items[1]).toMatchObject({ status: 'warn', finding: expect.stringContaining('NODE_USE_ENV_PROXY is set') });
  });
});

// The cloud client through real proxies from Debian's packages (squid and
// tinyproxy, started here on loopback), to the cloud double serving https with
// a certificate from a private CA made by the test. The cloud's name,
// cloud.lab.test, resolves only in squid's own hosts file: a request that
// does not go through the proxy cannot reach it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudClient, type CloudClientOptions } from '../../src/cloud/client.js';
import { CloudAuthError, CloudProxyError, CloudUnavailableError } from '../../src/cloud/errors.js';
import { planProxies, type ProxySettings } from '../../src/cloud/proxy/route.js';
import { loadTrust } from '../../src/cloud/trust/trust.js';
import { createLogger } from '../../src/log/logger.js';
import { addSecret, clearSecrets } from '../../src/log/redact.js';
import { CloudDouble, DEFAULT_API_KEY, DEFAULT_USERNAME } from '../cloud-double/cloud-double.js';
import { sampleReport } from '../cloud-double/sample.js';
import { privateCa } from '../proxies/private-ca.js';
import { Squid } from '../proxies/squid.js';
import { Tinyproxy } from '../proxies/tinyproxy.js';
import { freePort } from '../sim/adb-server.js';

const NAME = 'cloud.lab.test';
const account = { user: 'lab-node', password: 'p@ss:w/rd 9%' };
const cloudCa = privateCa('Device Agent Test Root CA');
const inspectingCa = privateCa('Corp TLS Inspection CA');

const cloud = new CloudDouble({ tls: { key: cloudCa.serverKey, cert: cloudCa.serverCert }, urlHost: NAME });
// Stands in for a TLS-inspecting proxy: what the agent sees through the tunnel is a certificate of the proxy's own CA.
const inspected = new CloudDouble({ tls: { key: inspectingCa.serverKey, cert: inspectingCa.serverCert }, urlHost: NAME });
const plainCloud = new CloudDouble({ urlHost: NAME });
const squidAuth = new Squid({ auth: account, hosts: { [NAME]: '127.0.0.1' } });
const squidStock = new Squid({ hosts: { [NAME]: '127.0.0.1' }, connectOnly443: true });
const tinyproxy = new Tinyproxy();
const tinyproxyAuth = new Tinyproxy({ auth: { user: 'lab', password: 'tiny-secret' } });
let tinyproxyBroken: Tinyproxy;
// tinyproxy before squid, which alone resolves cloud.lab.test: plain http to loopback never goes through a proxy (issue 42).
let tinyproxyChained: Tinyproxy;
let silent: Server;
let silentPort = 0;
let downPort = 0;
const caDir = mkdtempSync(join(tmpdir(), 'da-ca-'));
const caFile = join(caDir, 'ca.pem');
const bothCaFile = join(caDir, 'both.pem');
let lines: string[] = [];

beforeAll(async () => {
  writeFileSync(caFile, cloudCa.caCert);
  writeFileSync(bothCaFile, cloudCa.caCert + inspectingCa.caCert);
  await Promise.all([cloud.start(), inspected.start(), plainCloud.start(), squidAuth.start(), squidStock.start(), tinyproxy.start(), tinyproxyAuth.start()]);
  downPort = await freePort();
  tinyproxyBroken = new Tinyproxy({ upstream: `127.0.0.1:${downPort}` });
  await tinyproxyBroken.start();
  tinyproxyChained = new Tinyproxy({ upstream: `127.0.0.1:${squidStock.port}` });
  await tinyproxyChained.start();
  // Accepts and never answers: a proxy that hangs.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  silent?.close();
  await Promise.all([
    cloud.stop(),
    inspected.stop(),
    plainCloud.stop(),
    squidAuth.stop(),
    squidStock.stop(),
    tinyproxy.stop(),
    tinyproxyAuth.stop(),
    tinyproxyBroken?.stop(),
    tinyproxyChained?.stop(),
  ]);
});

beforeEach(() => {
  lines = [];
  cloud.clearRequests();
  clearSecrets();
});

function client(base: string, proxies: ProxySettings, overrides: Partial<CloudClientOptions> & { ca?: string } = {}): CloudClient {
  const plan = planProxies(proxies);
  for (const p of [plan.https, plan.http]) for (const s of p?.secrets ?? []) addSecret(s);
  const trust = loadTrust({ caFile: overrides.ca ?? caFile, systemCa: false });
  return new CloudClient({
    baseUrl: base,
    username: DEFAULT_USERNAME,
    apiKey: DEFAULT_API_KEY,
    requestTimeoutMs: 3_000,
    userAgent: 'device-agent/test',
    logger: createLogger({ level: 'debug', pretty: false, destination: { write: (line: string) => lines.push(line) } }),
    proxies: plan,
    secureContext: trust.secureContext!,
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** Nothing the test can see carries the proxy password, in any form. */
function expectNoPassword(...texts: string[]): void {
  const forms = [account.password, encodeURIComponent(account.password), Buffer.from(`${account.user}:${account.password}`).toString('base64')];
  for (const text of [...texts, ...lines]) for (const form of forms) expect(text).not.toContain(form);
}

describe('through an authenticating squid', () => {
  it('reports over a CONNECT tunnel with the proxy credentials, to a cloud only the proxy can reach', async () => {
    const direct = await failure(client(cloud.url, {}).putDevices(sampleReport()));
    expect(direct).toBeInstanceOf(CloudUnavailableError);
    expect((direct as CloudUnavailableError).code).toMatch(/ENOTFOUND|EAI_AGAIN/);

    expect(await client(cloud.url, { httpsProxy: squidAuth.url(account) }).putDevices(sampleReport())).toEqual({ failedDevices: [] });
    expect(cloud.putRequests()).toHaveLength(1);
    // squid writes a transaction's access-log line after it ends: read until it is there.
    await expect
      .poll(() => squidAuth.accessLog(), { timeout: 5_000 })
      .toMatch(new RegExp(`TCP_TUNNEL/200 \\d+ CONNECT ${NAME.replace(/\./g, '\\.')}:\\d+ ${account.user} `));
    expectNoPassword();
  });

  it('sends a plain http cloud request in absolute form through httpProxy', async () => {
    expect(await client(plainCloud.url, { httpProxy: squidAuth.url(account) }).putDevices(sampleReport())).toEqual({ failedDevices: [] });
    await expect
      .poll(() => squidAuth.accessLog(), { timeout: 5_000 })
      .toMatch(new RegExp(`PUT http://${NAME.replace(/\./g, '\\.')}:\\d+/v1/devices ${account.user} `));
  });

  it('names the proxy and asks for credentials when it answers 407 to CONNECT; no retry', async () => {
    const error = await failure(client(cloud.url, { httpsProxy: squidAuth.url() }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudProxyError);
    expect(error).toMatchObject({ problem: 'credentials', proxy: `http://127.0.0.1:${squidAuth.port}`, retryable: false, status: 407 });
    expect(error.message).toContain(
      `proxy http://127.0.0.1:${squidAuth.port} requires credentials (407 Proxy Authentication Required, ERR_CACHE_ACCESS_DENIED 0)`,
    );
    expect(error.message).toContain('http://USER:PASSWORD@HOST:PORT');
    expect(cloud.putRequests()).toHaveLength(0);
    expect(lines.filter((l) => l.includes('"level":"warn"'))).toEqual([]);
  });

  it('says the credentials were refused, naming the user and never the password', async () => {
    const wrong = { user: account.user, password: 'not-the-password' };
    const error = await failure(client(cloud.url, { httpsProxy: squidAuth.url(wrong) }).putDevices(sampleReport()));
    expect(error).toMatchObject({ problem: 'credentials', retryable: false });
    expect(error.message).toContain(`refused the credentials of user ${account.user} (407`);
    expect(error.message).not.toContain('not-the-password');
    expect(inspect(error)).not.toContain('not-the-password');
  });

  it('turns a 407 to a plain http request through the proxy into the same failure', async () => {
    const error = await failure(client(plainCloud.url, { httpProxy: squidAuth.url() }).putDevices(sampleReport()));
    expect(error).toMatchObject({ problem: 'credentials', status: 407 });
    expect(error.message).toContain('requires credentials (407');
  });

  it('refuses a certificate the host does not trust (a TLS-inspecting proxy), and takes its CA from caFile', async () => {
    const error = await failure(client(inspected.url, { httpsProxy: squidAuth.url(account) }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudProxyError);
    expect(error).toMatchObject({ problem: 'untrusted-certificate', retryable: false });
    expect(error.message).toMatch(
      new RegExp(
        `certificate presented for ${NAME} through proxy http://127\\.0\\.0\\.1:\\d+ is not trusted \\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\\)`,
      ),
    );
    expect(error.message).toContain('caFile (DEVICE_AGENT_CA_FILE)');
    expect(inspected.putRequests()).toHaveLength(0);

    expect(await client(inspected.url, { httpsProxy: squidAuth.url(account) }, { ca: bothCaFile }).putDevices(sampleReport())).toEqual({ failedDevices: [] });
    expectNoPassword(error.message, inspect(error));
  });
});

describe('through tinyproxy, without authentication', () => {
  it('reports through the tunnel to a cloud named by address', async () => {
    const byAddress = cloud.url.replace(NAME, '127.0.0.1');
    expect(await client(byAddress, { httpsProxy: `http://127.0.0.1:${tinyproxy.port}` }).putDevices(sampleReport())).toEqual({ failedDevices: [] });
    expect(tinyproxy.output).toMatch(/CONNECT/);
  });
});

describe('through tinyproxy with BasicAuth, and a wrong password', () => {
  // tinyproxy 1.11 answers 401 (not 407) and closes at once; a PUT whose body
  // is still on its way then sees the connection reset.
  const wrong = (): string => `http://lab:not-the-password@127.0.0.1:${tinyproxyAuth.port}`;

  it.each([
    ['a plain http cloud (the request through the proxy)', () => plainCloud.url, 'httpProxy'],
    ['an https cloud (a CONNECT tunnel)', () => cloud.url.replace(NAME, '127.0.0.1'), 'httpsProxy'],
  ] as const)('%s: names the proxy and its address as the hop that answered or cut', async (_name, base, setting) => {
    const error = await failure(client(base(), { [setting]: wrong() }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudProxyError);
    expect(error.message).toContain(`proxy http://127.0.0.1:${tinyproxyAuth.port}`);
    // Either the proxy's 401 arrived (refused credentials) or its reset did (cut before answering).
    expect(error.message).toMatch(
      /refused the credentials of user lab \(401 Unauthorized\)|cut the connection before answering PUT http:\/\/(127\.0\.0\.1|cloud\.lab\.test):\d+ \(ECONNRESET\)/,
    );
    expect(error.message).not.toMatch(/the cloud is unavailable/);
    expectNoPassword(error.message, inspect(error));
    expect(error.message).not.toContain('not-the-password');
  });

  it("keeps the cloud's own 401, forwarded with Via, as the cloud refusing the API key", async () => {
    const error = await failure(
      client(plainCloud.url, { httpProxy: `http://127.0.0.1:${tinyproxyChained.port}` }, { apiKey: 'not-the-key' }).putDevices(sampleReport()),
    );
    expect(error).toBeInstanceOf(CloudAuthError);
  });
});

describe('NO_PROXY', () => {
  it('sends a host it names direct, past a proxy that is down', async () => {
    const byAddress = cloud.url.replace(NAME, '127.0.0.1');
    const proxies = { httpsProxy: `http://127.0.0.1:${downPort}`, noProxy: 'localhost,127.0.0.0/8' };
    expect(await client(byAddress, proxies).putDevices(sampleReport())).toEqual({ failedDevices: [] });
  });

  it('sends a domain it names direct: cloud.lab.test is then not found, and squid sees nothing', async () => {
    const before = squidAuth.accessLog();
    const error = await failure(client(cloud.url, { httpsProxy: squidAuth.url(account), noProxy: '.lab.test' }).putDevices(sampleReport()));
    expect(error).not.toBeInstanceOf(CloudProxyError);
    expect((error as CloudUnavailableError).code).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(squidAuth.accessLog()).toBe(before);
  });

  it('keeps the proxy for hosts it does not name', async () => {
    expect(await client(cloud.url, { httpsProxy: squidAuth.url(account), noProxy: 'notlab.test,lab.test:8443' }).putDevices(sampleReport())).toEqual({
      failedDevices: [],
    });
  });
});

describe('proxy failures', () => {
  it('a CONNECT refused with 403 (stock squid allows port 443 only): one failure naming the proxy, no retry', async () => {
    const error = await failure(client(cloud.url, { httpsProxy: squidStock.url() }).putDevices(sampleReport()));
    expect(error).toMatchObject({ problem: 'forbidden', retryable: false, status: 403 });
    expect(error.message).toMatch(
      new RegExp(
        `proxy http://127\\.0\\.0\\.1:${squidStock.port} refused to open a tunnel to ${NAME.replace(/\./g, '\\.')}:\\d+ \\(403 Forbidden, ERR_ACCESS_DENIED 0\\)`,
      ),
    );
    expect(error.message).toContain('allow CONNECT to');
    expect(cloud.putRequests()).toHaveLength(0);
  });

  it('a CONNECT answered 502 (the proxy behind tinyproxy is down): named, resent at the next report', async () => {
    const byAddress = cloud.url.replace(NAME, '127.0.0.1');
    const error = await failure(client(byAddress, { httpsProxy: `http://127.0.0.1:${tinyproxyBroken.port}` }).putDevices(sampleReport()));
    // Under load tinyproxy sometimes drops the CONNECT before its 502 (ECONNRESET): named all the same.
    expect(error).toMatchObject({ retryable: true });
    expect(error.message).toMatch(
      new RegExp(
        `proxy http://127\\.0\\.0\\.1:${tinyproxyBroken.port} (could not reach 127\\.0\\.0\\.1:\\d+ \\(502 Unable to connect to upstream proxy\\)|closed the connection before answering CONNECT)`,
      ),
    );
  });

  it('a proxy that is down: named with what to check', async () => {
    const error = await failure(
      client(cloud.url, { httpsProxy: `http://${account.user}:${encodeURIComponent(account.password)}@127.0.0.1:${downPort}` }).putDevices(sampleReport()),
    );
    expect(error).toMatchObject({ problem: 'unreachable', retryable: true, code: 'ECONNREFUSED' });
    expect(error.message).toContain(`proxy http://127.0.0.1:${downPort} is not reachable (ECONNREFUSED)`);
    expect(error.message).toContain(
      "check the proxy's host and port in httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)",
    );
    expectNoPassword(error.message, inspect(error));
  });

  it('a plain http request to a proxy that is down names the proxy too', async () => {
    const error = await failure(client(plainCloud.url, { httpProxy: `http://127.0.0.1:${downPort}` }).putDevices(sampleReport()));
    expect(error).toMatchObject({ problem: 'unreachable', code: 'ECONNREFUSED' });
  });

  it('a proxy that accepts and never answers CONNECT: the tunnel times out, naming the proxy', async () => {
    const error = await failure(client(cloud.url, { httpsProxy: `http://127.0.0.1:${silentPort}` }, { requestTimeoutMs: 300 }).putDevices(sampleReport()));
    expect(error).toMatchObject({ problem: 'timeout', code: 'ETIMEDOUT' });
    expect(error.message).toContain(`proxy http://127.0.0.1:${silentPort} did not open a tunnel to ${NAME}`);
  });
});

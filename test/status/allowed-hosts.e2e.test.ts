import { request } from 'node:http';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusServer } from '../../src/status/server.js';
import { evaluateHealth } from '../../src/status/health.js';
import { hostAllower, hostOf } from '../../src/status/allowed-hosts.js';
import { captureLogger } from '../log/capture.js';

// Issue 35, finding 8: /healthz told any asker the proxy's address and user
// name and the cloud's error text, and both /healthz and /metrics answered
// any Host, so a web page open on the host could read them by DNS rebinding.

// Unhealthy the way a real daemon is behind a failing proxy: the details are in the reasons.
const health = () =>
  evaluateHealth({
    now: 1_000_000,
    startedAt: 900_000,
    lastFailure: 'PUT /devices: the proxy http://labuser@proxy.corp.example:3128 refused the tunnel (407); the cloud said "quota exceeded for org 4411"',
    sourceProblems: ['adb device tracking is down: connect ECONNREFUSED 127.0.0.1:5037'],
    listingDelivered: false,
    maxReportAgeMs: 120_000,
  });

let status: StatusServer;
let port: number;
let logged: ReturnType<typeof captureLogger>;

beforeAll(async () => {
  logged = captureLogger();
  status = new StatusServer('127.0.0.1:0', { health, metrics: () => 'device_agent_up 1\n' }, logged.logger, {
    hosts: ['prometheus-proxy.lab.example'],
  });
  port = Number((await status.start())!.split(':').pop());
});
afterAll(() => status.stop());

/** A GET with the Host header as given: what a browser sends after a rebinding, which fetch() would not let a test forge. */
function get(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, setHost: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the status endpoint answers only its own Host names', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1:9317'],
    ['an IPv6 literal', '[::1]:9317'],
    ['localhost', 'localhost:9317'],
    ['a .localhost name', 'agent.localhost'],
    ["this host's name", `${hostname()}:9317`],
    ['a name allowed by statusHosts, any case', 'Prometheus-Proxy.lab.example:443'],
  ])('answers %s', async (_what, host) => {
    expect((await get('/metrics', host)).status).toBe(200);
    expect((await get('/healthz', host)).status).toBe(503);
  });

  it.each([
    ['a rebound name', 'attacker.example:9317'],
    ['a name ending like an allowed one', 'evilprometheus-proxy.lab.example'],
    ['a name with localhost in front', 'localhost.attacker.example'],
    ['garbage', 'a b/c'],
  ])('refuses %s with 421 and nothing of /healthz or /metrics', async (_what, host) => {
    for (const path of ['/healthz', '/metrics']) {
      const res = await get(path, host);
      expect(res.status).toBe(421);
      expect(res.body).toBe('Misdirected Request\n');
    }
  });

  it('answers a request without Host (HTTP/1.0)', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /metrics HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/device_agent_up 1/);
  });

  it('says a refused name in one rate-limited line, naming the setting', async () => {
    const before = logged.lines().length;
    for (let i = 0; i < 30; i++) await get('/metrics', 'flood.attacker.example');
    const said = logged.lines().slice(before);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThanOrEqual(10);
    expect(String(said[0]!.msg)).toMatch(/refused a request for Host "flood\.attacker\.example" \(421\).*statusHosts/);
  });
});

describe('/healthz says a status line, no details', () => {
  it("names what is down without error texts, proxy addresses, user names or the cloud's words", async () => {
    const res = await get('/healthz', 'localhost');
    expect(res).toEqual({ status: 503, body: 'unhealthy: adb device tracking is down; no report delivered\n' });
    expect(health().reasons.join('\n')).toMatch(/labuser@proxy/);
  });
});

describe('hostOf and hostAllower', () => {
  it('parse a Host header strictly', () => {
    expect(hostOf('LocalHost.:80')).toBe('localhost');
    expect(hostOf('[fe80::1%eth0]:1')).toBe('fe80::1%eth0');
    expect(hostOf('user@host')).toBeUndefined();
    expect(hostOf('')).toBeUndefined();
  });

  it('allow the listen host, and anything with *', () => {
    const allows = hostAllower({ listenHost: 'agent.lab', hostname: 'h1.lab.example', allowed: [] });
    expect([allows('agent.lab:9317'), allows('h1'), allows('h1.lab.example'), allows('h2')]).toEqual([true, true, true, false]);
    expect(hostAllower({ listenHost: '0.0.0.0', hostname: 'h', allowed: ['*'] })('anything.example')).toBe(true);
  });
});

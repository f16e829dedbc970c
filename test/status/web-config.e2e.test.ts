import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStatusEndpoint } from '../../src/doctor/status-endpoint.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { StatusServer } from '../../src/status/server.js';
import { loadWebConfig } from '../../src/status/web-config.js';
import { privateCa } from '../proxies/private-ca.js';
import { writeClientCa } from '../support/client-ca.js';

// The status endpoint for a remote Prometheus (issue 33, finding 7): the web
// configuration file node_exporter reads, with certificates the openssl CLI
// made and a real HTTPS client.

const source = { health: () => ({ ok: true, reasons: [], brief: [] }), metrics: () => 'device_agent_up 1\n' };
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

// As `htpasswd -nBC 10 prometheus` writes it ($2y$): bcryptjs makes $2b$, the same hash under another name.
const hash = bcrypt.hashSync('s3cret pass', 10).replace(/^\$2b\$/, '$2y$');
const ca = privateCa('Status Endpoint Test CA', ['localhost', '127.0.0.1']);

function webDir(yaml: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'da-web-'));
  writeFileSync(join(dir, 'server.crt'), ca.serverCert);
  writeFileSync(join(dir, 'server.key'), ca.serverKey);
  writeFileSync(join(dir, 'web.yml'), yaml);
  return { dir, file: join(dir, 'web.yml') };
}

async function serve(webConfigFile: string): Promise<string> {
  const status = new StatusServer('127.0.0.1:0', source, silentLogger(), { webConfigFile, nodeId: 'lab-node-7' });
  const bound = (await status.start())!;
  stops.push(() => status.stop());
  return bound.replace(/^127\.0\.0\.1:/, '');
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function get(port: string, path: string, options: { auth?: string; cert?: string; key?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        ca: ca.caCert,
        servername: 'localhost',
        ...(options.auth ? { auth: options.auth } : {}),
        cert: options.cert,
        key: options.key,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the status endpoint with a web configuration file', () => {
  it('TLS with the certificate it names (relative to the file) and basic authentication against a bcrypt hash', async () => {
    const { file } = webDir(`tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: '${hash}'\n`);
    const port = await serve(file);
    const none = await get(port, '/metrics');
    expect([none.status, none.headers['www-authenticate'], none.headers.server]).toEqual([401, 'Basic realm="device-agent", charset="UTF-8"', 'device-agent']);
    // The node id only to whom may read /metrics, which names it too.
    expect(none.headers['device-agent-node-id']).toBeUndefined();
    expect(none.body).not.toContain('device_agent_up');
    expect((await get(port, '/metrics', { auth: 'prometheus:wrong' })).status).toBe(401);
    expect((await get(port, '/metrics', { auth: 'someone:s3cret pass' })).status).toBe(401);
    const ok = await get(port, '/metrics', { auth: 'prometheus:s3cret pass' });
    expect([ok.status, ok.body]).toEqual([200, 'device_agent_up 1\n']);
    expect(ok.headers['device-agent-node-id']).toBe('lab-node-7');
    // Again: the remembered pair, as a scrape every 15 s.
    expect((await get(port, '/healthz', { auth: 'prometheus:s3cret pass' })).body).toBe('ok\n');
    // Plain HTTP on the TLS port gets no metrics.
    const plain = await fetch(`http://127.0.0.1:${port}/metrics`).then(
      async (r) => `${r.status} ${await r.text()}`,
      (e: Error) => `refused: ${e.message}`,
    );
    expect(plain).not.toContain('device_agent_up');
    // doctor speaks TLS there and knows the agent by its answer; whose agent, it cannot read past the password
    // (no daemon of its state directory says it listens there): it says so (test/doctor/status-endpoint.e2e.test.ts).
    expect(await checkStatusEndpoint({ listen: `127.0.0.1:${port}`, stateDir: mkdtempSync(join(tmpdir(), 'da-web-state-')), webConfigFile: file })).toEqual([
      {
        status: 'warn',
        finding: expect.stringContaining(
          `status endpoint: an agent answers on https://127.0.0.1:${port} but asks for basic authentication before it says its node id`,
        ),
        advice: expect.any(String),
      },
    ]);
  });

  it('client_ca_file: only a client with a certificate that CA signed gets an answer', async () => {
    const { dir, file } = webDir('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: clients.crt\n');
    writeClientCa(dir);
    const port = await serve(file);
    await expect(get(port, '/metrics')).rejects.toThrow();
    const ok = await get(port, '/metrics', { cert: readFileSync(join(dir, 'prom.crt'), 'utf8'), key: readFileSync(join(dir, 'prom.key'), 'utf8') });
    expect([ok.status, ok.body]).toEqual([200, 'device_agent_up 1\n']);
  });
});

describe('loadWebConfig', () => {
  it('refuses, naming the setting, the file and the key, what it cannot honour; never quotes a hash', () => {
    const cases: Array<[string, RegExp]> = [
      ['tls_server_config:\n  cert_file: server.crt\n', /tls_server_config needs both cert_file and key_file/],
      ['tls_server_config:\n  cert_file: server.crt\n  key_file: missing.key\n', /cannot read .*tls_server_config\.key_file \(.*missing\.key\): ENOENT/],
      ['http_server_config:\n  http2: false\n', /http_server_config is not read by device-agent \(it reads tls_server_config, basic_auth_users\)/],
      [
        'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cipher_suites: []\n',
        /tls_server_config\.cipher_suites is not read by device-agent/,
      ],
      ["basic_auth_users:\n  prometheus: 'plain-text-password'\n", /basic_auth_users\.prometheus is not a bcrypt hash/],
      ['tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n', /needs client_ca_file/],
      ['[unclosed', /is not YAML/],
    ];
    for (const [yaml, problem] of cases) {
      const { file } = webDir(yaml);
      let message = '';
      try {
        loadWebConfig(file);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, yaml).toMatch(/^statusWebConfigFile \(DEVICE_AGENT_STATUS_WEB_CONFIG_FILE\): /);
      expect(message, yaml).toMatch(problem);
      expect(message).not.toContain('plain-text-password');
    }
  });

  it('a daemon given a web config it cannot use does not start the endpoint without it', () => {
    const { file } = webDir('tls_server_config:\n  cert_file: server.crt\n');
    expect(() => new StatusServer('127.0.0.1:0', source, silentLogger(), { webConfigFile: file })).toThrow(/needs both cert_file and key_file/);
  });
});

// Certificates rotated in place (certbot renews and swaps the files; a CA's
// short-lived certificates): the endpoint serves the new pair without a
// restart, and a new pair that does not fit keeps the old one, with one warning.
describe('the status endpoint, its certificate rotated', () => {
  const issuerOf = (port: string, cas: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/healthz', ca: cas, servername: 'localhost', agent: false }, (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate();
        res.resume();
        res.on('end', () => resolve(String(cert.issuer.CN)));
      });
      req.on('error', reject);
      req.end();
    });

  it('serves the new certificate once the files change, and keeps it when the next pair does not match, saying so once', async () => {
    const next = privateCa('Rotated Status CA', ['localhost', '127.0.0.1']);
    const other = privateCa('Other Status CA', ['localhost', '127.0.0.1']);
    const cas = [ca.caCert, next.caCert, other.caCert];
    const { dir, file } = webDir('tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n');
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', pretty: false, destination: { write: (line: string) => lines.push(line) } });
    const status = new StatusServer('127.0.0.1:0', source, logger, { webConfigFile: file, tlsCheckMs: 0 });
    const port = (await status.start())!.replace(/^127\.0\.0\.1:/, '');
    stops.push(() => status.stop());
    expect(await issuerOf(port, cas)).toBe('Status Endpoint Test CA');

    // As certbot swaps them: each file replaced by a rename.
    const swap = (name: string, text: string): void => {
      writeFileSync(join(dir, `${name}.new`), text);
      renameSync(join(dir, `${name}.new`), join(dir, name));
    };
    swap('server.crt', next.serverCert);
    swap('server.key', next.serverKey);
    expect(await issuerOf(port, cas)).toBe('Rotated Status CA');
    expect(lines.filter((l) => /serves its new certificate/.test(l))).toHaveLength(1);

    // A certificate whose key is another's: the rotated pair stays.
    swap('server.crt', other.serverCert);
    expect(await issuerOf(port, cas)).toBe('Rotated Status CA');
    expect(await issuerOf(port, cas)).toBe('Rotated Status CA');
    const warnings = lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/new certificate or key cannot be used .*keeps serving the previous one/);

    // Its key follows: the other pair is served.
    swap('server.key', other.serverKey);
    expect(await issuerOf(port, cas)).toBe('Other Status CA');
  });
});

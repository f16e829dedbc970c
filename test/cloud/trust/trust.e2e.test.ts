// Whom https trusts, against a real TLS server whose certificate comes from a
// private CA made by the test: Node's roots alone refuse it; caFile, or the
// system bundle (here pointed at with SSL_CERT_FILE), make it trusted.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureContext } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTrust } from '../../../src/cloud/trust/trust.js';
import { ConfigError } from '../../../src/config/errors.js';
import { privateCa } from '../../proxies/private-ca.js';

const ca = privateCa('Trust Test Root CA', ['localhost', '127.0.0.1']);
const dir = mkdtempSync(join(tmpdir(), 'da-trust-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer({ key: ca.serverKey, cert: ca.serverCert }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(secureContext: SecureContext | undefined): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, ...(secureContext && { secureContext }) }, (res) => {
      res.resume();
      res.on('end', () => resolve(`status ${res.statusCode}`));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadTrust', () => {
  it("keeps Node's default roots when nothing is added, and they refuse the private CA", async () => {
    const trust = loadTrust({ systemCa: false }, {});
    expect(trust.secureContext).toBeUndefined();
    expect(trust.sources).toEqual([{ kind: 'default', count: expect.any(Number) }]);
    expect(await get(trust.secureContext)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('trusts the CAs of caFile, and names them', async () => {
    const caFile = file('ca.pem', `# the lab's root\n${ca.caCert}`);
    const trust = loadTrust({ caFile, systemCa: false }, {});
    expect(trust.sources.at(-1)).toEqual({ kind: 'file', path: caFile, subjects: [ca.caSubject] });
    expect(await get(trust.secureContext)).toBe('status 200');
  });

  it('trusts the system bundle when systemCa is on (SSL_CERT_FILE first, as OpenSSL)', async () => {
    const bundle = file('bundle.crt', ca.caCert);
    const on = loadTrust({ systemCa: true }, { SSL_CERT_FILE: bundle });
    expect(on.sources.at(-1)).toEqual({ kind: 'system', path: bundle, count: 1 });
    expect(await get(on.secureContext)).toBe('status 200');
    const off = loadTrust({ systemCa: false }, { SSL_CERT_FILE: bundle });
    expect(await get(off.secureContext)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('says so when no system bundle exists, and keeps the default roots', () => {
    const trust = loadTrust({ systemCa: true }, {}, ['/nonexistent/ca-certificates.crt']);
    expect(trust.secureContext).toBeUndefined();
    expect(trust.sources.at(-1)).toEqual({ kind: 'system-missing', tried: ['/nonexistent/ca-certificates.crt'] });
  });

  it('refuses a caFile it cannot use, naming the setting and the file', () => {
    expect(configError(() => loadTrust({ caFile: join(dir, 'missing.pem'), systemCa: false }, {})).message).toBe(
      `caFile (DEVICE_AGENT_CA_FILE): cannot read ${join(dir, 'missing.pem')}: ENOENT`,
    );
    const key = file('key.pem', ca.serverKey);
    expect(configError(() => loadTrust({ caFile: key, systemCa: false }, {})).message).toMatch(/holds no PEM certificate/);
    const broken = file('broken.pem', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
    expect(configError(() => loadTrust({ caFile: broken, systemCa: false }, {})).message).toMatch(/certificate 1 of .* is not a valid X\.509 certificate/);
  });
});

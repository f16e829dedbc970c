// NODE_TLS_REJECT_UNAUTHORIZED=0 can reach the agent from agent.env, a
// compose env_file or a drop-in; Node then skips certificate checks for every
// request that does not ask for them. The agent's requests ask, so a server
// whose certificate nobody trusts is refused whatever the variable says.
import { createServer, type Server } from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from '../../src/cloud/http.js';
import { loadTrust } from '../../src/cloud/trust/trust.js';
import { privateCa } from '../proxies/private-ca.js';

const ca = privateCa('Untrusted Test Root CA', ['localhost', '127.0.0.1']);
let server: Server;
let base = '';
const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

beforeAll(async () => {
  server = createServer({ key: ca.serverKey, cert: ca.serverCert }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

afterEach(() => {
  if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
});

const get = () =>
  httpRequest({ method: 'GET', url: new URL(`${base}/v1/devices`), headers: {}, timeoutMs: 3_000 }).then(
    (res) => `status ${res.status}`,
    (error: NodeJS.ErrnoException) => error.code ?? error.message,
  );

describe('the certificate check', () => {
  it('refuses an untrusted certificate with NODE_TLS_REJECT_UNAUTHORIZED=0 set', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    expect(await get()).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('still accepts the certificate once its CA is trusted (caFile)', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const caFile = join(mkdtempSync(join(tmpdir(), 'da-tls-')), 'ca.pem');
    writeFileSync(caFile, ca.caCert);
    const { secureContext } = loadTrust({ systemCa: false, caFile }, {});
    const res = await httpRequest({ method: 'GET', url: new URL(`${base}/v1/devices`), headers: {}, timeoutMs: 3_000, secureContext });
    expect(res.status).toBe(200);
  });
});

// The HTTP exchange under the cloud client, against a real server on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAnswerError } from '../../src/cloud/content-encoding.js';
import { httpRequest, HttpTimeoutError } from '../../src/cloud/http.js';

let server: Server;
let base: string;
const seen: { method?: string; length?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, length: req.headers['content-length'], body });
      if (req.url === '/big') {
        res.end('x'.repeat(64 * 1024));
      } else if (req.url === '/hang') {
        res.writeHead(200);
        res.write('{"partial":');
      } else {
        res.writeHead(201, 'Made', { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (path: string, extra: Partial<Parameters<typeof httpRequest>[0]> = {}) =>
  httpRequest({ method: 'PUT', url: new URL(base + path), headers: {}, body: '{"a":"é"}', timeoutMs: 2_000, ...extra });

describe('httpRequest', () => {
  it('sends the body with its byte length and returns status, reason, headers and body', async () => {
    const res = await request('/');
    expect(res).toMatchObject({ status: 201, statusMessage: 'Made', body: '{"ok":true}' });
    expect(res.headers['content-type']).toBe('application/json');
    expect(seen.at(-1)).toEqual({ method: 'PUT', length: '10', body: '{"a":"é"}' });
  });

  it('cuts off an answer longer than the cap', async () => {
    const error = await request('/big', { maxBodyBytes: 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpAnswerError);
    expect(error).toMatchObject({ code: 'EBODYTOOLARGE' });
  });

  it('times out the whole exchange, body included', async () => {
    const error = await request('/hang', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpTimeoutError);
    expect(error).toMatchObject({ name: 'TimeoutError', code: 'ETIMEDOUT' });
  });

  it('rejects with the abort reason when the signal fires mid-answer', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('agent stopping')), 100);
    await expect(request('/hang', { signal: controller.signal })).rejects.toThrow('agent stopping');
  });

  it('refuses a scheme other than http and https', async () => {
    await expect(request('/', { url: new URL('ftp://127.0.0.1/') })).rejects.toMatchObject({ code: 'ERR_UNSUPPORTED_PROTOCOL' });
  });
});

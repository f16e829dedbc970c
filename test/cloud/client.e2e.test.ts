// The cloud client against the real CloudDouble over loopback: every attempt,
// delay and fault below is observed at the double, not from the client's own
// account of what it did. One attempt per call: resending is the daemon's.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CloudClient, type CloudClientOptions } from '../../src/cloud/client.js';
import { CloudAuthError, CloudError, CloudProtocolError, CloudRejectedError, CloudUnavailableError } from '../../src/cloud/errors.js';
import { PathSegmentError } from '../../src/cloud/path-segment.js';
import { createLogger } from '../../src/log/logger.js';
import { CloudDouble, DEFAULT_API_KEY, DEFAULT_USERNAME } from '../cloud-double/cloud-double.js';
import { sampleDevice, sampleReport } from '../cloud-double/sample.js';
import { systemTool } from '../support/system-tool.js';

let double: CloudDouble;
let base: string;
let lines: string[];

beforeEach(async () => {
  double = new CloudDouble();
  base = await double.start();
  lines = [];
});

afterEach(async () => {
  await double.stop();
});

function client(overrides: Partial<CloudClientOptions> = {}): CloudClient {
  return new CloudClient({
    baseUrl: base,
    username: DEFAULT_USERNAME,
    apiKey: DEFAULT_API_KEY,
    requestTimeoutMs: 2_000,
    userAgent: 'device-agent/test',
    logger: createLogger({ level: 'debug', pretty: false, destination: { write: (line: string) => lines.push(line) } }),
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

describe('CloudClient.putDevices', () => {
  it('sends the report with Basic auth and JSON headers, and returns the answer', async () => {
    const body = sampleReport([sampleDevice('AAA')]);
    expect(await client().putDevices(body)).toEqual({ failedDevices: [] });
    const [req] = double.putRequests();
    const expected = `Basic ${Buffer.from(`${DEFAULT_USERNAME}:${DEFAULT_API_KEY}`).toString('base64')}`;
    expect(req?.headers.authorization).toBe(expected);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['user-agent']).toBe('device-agent/test');
    expect(req?.body).toEqual(body);
    expect(double.store.stored('AAA')).toBeDefined();
  });

  it('returns failedDevices as the cloud answered them', async () => {
    double.failDevices([{ udid: 'BBB', message: 'missing required capability: platformVersion' }]);
    const answer = await client().putDevices(sampleReport([sampleDevice('AAA'), sampleDevice('BBB')]));
    expect(answer.failedDevices).toEqual([{ udid: 'BBB', message: 'missing required capability: platformVersion' }]);
  });

  it('reads an empty 200 body as nothing failed', async () => {
    double.answerEmptyNext();
    expect(await client().putDevices(sampleReport())).toEqual({ failedDevices: [] });
  });

  it('fails at once with CloudAuthError on wrong credentials (one request only)', async () => {
    const error = await failure(client({ apiKey: 'wrong-key-123456' }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudAuthError);
    expect((error as CloudAuthError).status).toBe(401);
    expect(error.message).toMatch(/DEVICE_AGENT_USERNAME/);
    expect(error.message).toMatch(/DEVICE_AGENT_API_KEY/);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('treats 403 as an auth error too, without retry', async () => {
    double.failNext({ status: 403, times: Infinity });
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudAuthError);
    expect((error as CloudAuthError).status).toBe(403);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('does not retry a 400, and keeps a short excerpt of the answer', async () => {
    const body = sampleReport() as unknown as { machine: Record<string, unknown> };
    body.machine.freemem = 1.5;
    const error = await failure(client().putDevices(body as never));
    expect(error).toBeInstanceOf(CloudRejectedError);
    expect((error as CloudRejectedError).status).toBe(400);
    expect((error as CloudRejectedError).bodyExcerpt).toMatch(/machine\.freemem/);
    expect((error as CloudRejectedError).message).not.toMatch(/v1 root/);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('says a 404 points at a base URL without the v1 root', async () => {
    const error = await failure(client({ baseUrl: base.replace(/\/v1$/, '') }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudRejectedError);
    expect((error as CloudRejectedError).status).toBe(404);
    expect(error.message).toMatch(/404.*DEVICE_AGENT_BASE_URL is not the v1 root of the cloud \(e\.g\. https:\/\/cloud\.example\.com\/v1\)/);
  });

  it('a 503: not delivered, one attempt', async () => {
    double.failNext({ status: 503 });
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).status).toBe(503);
    // What comes next is the command's to say: the daemon resends, once exits 1.
    expect(error.message).not.toMatch(/resend/);
    expect(double.putRequests()).toHaveLength(1);
  });

  it("carries a 429's Retry-After in seconds, for the planner's wait", async () => {
    double.failNext({ status: 429, retryAfter: 7 });
    const error = await failure(client().putDevices(sampleReport()));
    expect((error as CloudUnavailableError).retryAfterMs).toBe(7_000);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('a connection reset: not delivered, one attempt', async () => {
    double.resetConnectionNext(1);
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).code).toBe('ECONNRESET');
    expect(double.putRequests().map((r) => r.answer?.fault ?? r.answer?.status)).toEqual(['reset']);
    expect(await client().putDevices(sampleReport())).toEqual({ failedDevices: [] });
  });

  it('an answer cut off mid-body: not delivered, one attempt', async () => {
    double.cutBodyNext();
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect(double.putRequests()).toHaveLength(1);
    expect(await client().putDevices(sampleReport())).toEqual({ failedDevices: [] });
  });

  it('a timeout: not delivered, CloudUnavailableError ETIMEDOUT, one attempt', async () => {
    double.setDelay(1_500);
    const error = await failure(client({ requestTimeoutMs: 150 }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).code).toBe('ETIMEDOUT');
    expect(error.message).toMatch(/no answer within 150 ms/);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('times out a body that trickles in too slowly', async () => {
    double.setTrickle(100, 2);
    const error = await failure(client({ requestTimeoutMs: 300 }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).code).toBe('ETIMEDOUT');
    expect(double.putRequests()).toHaveLength(1);
  });

  it('gives up on a refused connection with the error code', async () => {
    const port = new URL(base).port;
    await double.stop();
    const error = await failure(client({ baseUrl: `http://127.0.0.1:${port}/v1` }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).code).toBe('ECONNREFUSED');
  });

  it('does not retry a TLS failure (https to a plain-HTTP server) and points at the scheme', async () => {
    const error = await failure(client({ baseUrl: base.replace('http:', 'https:') }).putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).retryable).toBe(false);
    expect(error.message).toMatch(/TLS problem.*DEVICE_AGENT_BASE_URL/);
  });

  it('something that does not speak HTTP at the address (TLS on an http:// URL, SSH): says what answered, one attempt, no retry chain', async () => {
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from('15030100020228', 'hex'), /does not answer HTTP: it answered with TLS; DEVICE_AGENT_BASE_URL probably needs https:\/\//],
      [
        Buffer.from('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n\u001b'),
        /does not answer HTTP: it sent "SSH-2\.0-OpenSSH_9\.2p1 Debian-2\\r\\n\\u001b"; check the host and port of DEVICE_AGENT_BASE_URL/,
      ],
    ];
    for (const [greeting, says] of cases) {
      let connections = 0;
      const other = net.createServer((socket) => {
        connections++;
        socket.on('error', () => undefined);
        socket.write(greeting);
      });
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
      try {
        const error = await failure(client({ baseUrl: `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1` }).putDevices(sampleReport()));
        expect(error).toBeInstanceOf(CloudUnavailableError);
        expect(error.message).toMatch(says);
        expect((error as CloudUnavailableError).retryable).toBe(false);
        expect(connections).toBe(1);
      } finally {
        other.close();
      }
    }
  });

  it('a certificate the system does not trust (self-signed, as a test or MITM proxy has): a TLS problem naming the code, one attempt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'da-tls-'));
    execFileSync(
      systemTool('openssl'),
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    let requests = 0;
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const error = await failure(client({ baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }).putDevices(sampleReport()));
      expect(error).toBeInstanceOf(CloudUnavailableError);
      expect(error.message).toMatch(/TLS problem \(DEPTH_ZERO_SELF_SIGNED_CERT: .*system CA store/);
      expect((error as CloudUnavailableError).retryable).toBe(false);
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });

  it('headers over 16 KiB, or two Content-Length values that disagree: not delivered, and said so; no crash, no guess at the body', async () => {
    const answers = [
      `HTTP/1.1 200 OK\r\nX-Pad: ${'a'.repeat(100_000)}\r\nContent-Length: 2\r\n\r\n{}`,
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 20\r\n\r\n{}',
    ];
    for (const answer of answers) {
      let connections = 0;
      const raw = net.createServer((socket) => {
        connections++;
        socket.on('error', () => undefined);
        socket.once('data', () => socket.end(answer));
      });
      await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
      try {
        const error = await failure(client({ baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1` }).putDevices(sampleReport()));
        expect(error).toBeInstanceOf(CloudUnavailableError);
        expect(error.message).toMatch(/HPE_HEADER_OVERFLOW|does not answer HTTP/);
        expect(connections).toBeGreaterThanOrEqual(1);
      } finally {
        raw.close();
      }
    }
  });

  it('turns an HTML 200 into CloudProtocolError naming what came back', async () => {
    double.answerHtmlNext();
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudProtocolError);
    expect(error.message).toMatch(/text\/html/);
    expect(error.message).toMatch(/<!DOCTYPE html>/);
    expect(error.message).toMatch(/DEVICE_AGENT_BASE_URL/);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('turns truncated JSON into CloudProtocolError', async () => {
    double.answerGarbageNext();
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudProtocolError);
    expect((error as CloudProtocolError).bodyExcerpt).toBe('{"failedDevices":[{"udid":"');
  });

  it('turns a redirect into CloudProtocolError instead of following it', async () => {
    double.failNext({ status: 302 });
    const error = await failure(client().putDevices(sampleReport()));
    expect(error).toBeInstanceOf(CloudProtocolError);
    expect(error.message).toMatch(/redirected/);
  });

  it('ends an attempt in flight at the deadline instead of after the whole request timeout', async () => {
    double.delayNext(3_000);
    const deadline = Date.now() + 400;
    const error = await failure(client({ minAttemptMs: 100 }).putDevices(sampleReport(), { deadline }));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    // requestTimeoutMs is 2000 here: the attempt was given only what was left until the deadline.
    const given = Number(/no answer within (\d+) ms/.exec(error.message)?.[1]);
    expect(given).toBeGreaterThanOrEqual(100);
    expect(given).toBeLessThanOrEqual(400);
    expect(double.putRequests()).toHaveLength(1);
  });

  it('still makes its attempt when the deadline has passed', async () => {
    double.failNext({ status: 503 });
    const error = await failure(client().putDevices(sampleReport(), { deadline: Date.now() - 1 }));
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect(double.putRequests()).toHaveLength(1);
    double.resetFaults();
    expect(await client().putDevices(sampleReport(), { deadline: Date.now() - 1 })).toEqual({ failedDevices: [] });
  });

  it('stops waiting when the signal aborts', async () => {
    double.setDelay(60_000);
    const controller = new AbortController();
    const pending = client({ requestTimeoutMs: 60_000 }).putDevices(sampleReport(), { signal: controller.signal });
    // In flight: the double has it and holds its answer.
    await vi.waitFor(() => expect(double.putRequests()).toHaveLength(1), { timeout: 5_000 });
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    expect(double.putRequests()).toHaveLength(1);
  });
});

describe('secrets', () => {
  it('never shows the API key or the Basic credential in logs or errors', async () => {
    const credential = Buffer.from(`${DEFAULT_USERNAME}:${DEFAULT_API_KEY}`).toString('base64');
    const errors: unknown[] = [];
    double.failNext({ status: 503 });
    errors.push(await failure(client().putDevices(sampleReport())));
    double.resetFaults().failNext({ status: 400, body: JSON.stringify({ echo: `Basic ${credential}`, key: DEFAULT_API_KEY }) });
    errors.push(await failure(client().putDevices(sampleReport())));
    double.answerHtmlNext();
    errors.push(await failure(client().putDevices(sampleReport())));
    double.setDelay(500);
    errors.push(await failure(client({ requestTimeoutMs: 50 }).putDevices(sampleReport())));
    errors.push(await failure(client({ apiKey: `${DEFAULT_API_KEY}-wrong` }).checkCredentials()));

    expect(errors.map((e) => (e as Error).constructor.name)).toEqual([
      'CloudUnavailableError',
      'CloudRejectedError',
      'CloudProtocolError',
      'CloudUnavailableError',
      'CloudAuthError',
    ]);
    const texts = [...lines, ...errors.flatMap((e) => [(e as Error).message, (e as Error).stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 })])];
    for (const text of texts) {
      expect(text).not.toContain(DEFAULT_API_KEY);
      expect(text).not.toContain(credential);
    }
    for (const e of errors) expect(e).toBeInstanceOf(CloudError);
  });
});

describe('reads for the doctor', () => {
  it("reads a reported device's status, and undefined for an unknown id", async () => {
    const c = client();
    await c.putDevices(sampleReport([sampleDevice('AAA')]));
    expect(await c.getDeviceStatus(double.store.stored('AAA')!.id)).toEqual({ isBooked: false, isOnline: true });
    expect(await c.getDeviceStatus(999_999)).toBeUndefined();
  });

  it.each(['.', '..', ''])('asks nothing for a device id %j: URL resolution would drop it and the segment before', async (id) => {
    const c = client();
    await expect(c.getDeviceStatus(id)).rejects.toBeInstanceOf(PathSegmentError);
    expect(double.requests).toHaveLength(0);
  });

  it('sends a device id with a dot, a slash or a percent sign as one segment', async () => {
    const c = client();
    for (const id of ['...', 'a/..', '%2e%2e', '.hidden']) expect(await c.getDeviceStatus(id)).toBeUndefined();
    expect(double.requests.map((r) => r.path)).toEqual([
      '/devices/.../status',
      '/devices/a%2F../status',
      '/devices/%252e%252e/status',
      '/devices/.hidden/status',
    ]);
  });

  it('checks credentials and measures the clock skew from the Date header', async () => {
    double.setClockOffset(120_000);
    const check = await client().checkCredentials();
    expect(check.status).toBe(200);
    expect(check.privateDevices).toBe(0);
    // HTTP dates have one-second resolution.
    expect(Math.abs(check.clockSkewMs! - 120_000)).toBeLessThan(2_000);
    expect(double.requests).toHaveLength(1);
  });

  it('reports wrong credentials from the check as CloudAuthError', async () => {
    await expect(client({ username: 'someone-else' }).checkCredentials()).rejects.toBeInstanceOf(CloudAuthError);
  });
});

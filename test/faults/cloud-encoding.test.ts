import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/cloud/client.js';
import { httpRequest } from '../../src/cloud/http.js';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';

// An answer compressed without being asked (issue 42, finding 11): the agent
// sent no Accept-Encoding, and an upstream that gzips anyway (RFC 9110 allows
// it) made a stored report count as not delivered, its failedDevices
// ignored, and compressed bytes in the log.

const adb = new AdbServer();
const cloud = new CloudDouble();
const UDID = 'GZIP0001';
const device = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), UDID) });
let agent: AgentProcess | undefined;

beforeAll(async () => {
  await adb.start();
  await cloud.start();
  await adb.connect(await device.start());
  await adb.waitForState(device.serial, 'device', 20_000);
});

afterEach(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  agent = undefined;
  cloud.resetFaults();
  cloud.clearRequests();
});

afterAll(async () => {
  await adb.stop();
  await cloud.stop();
  await device.stop();
});

/** A server on loopback answering every request with these bytes under this Content-Encoding. */
async function answering(bytes: Buffer, coding: string): Promise<{ url: URL; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding, 'Content-Length': String(bytes.length) });
    res.end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/devices`), server };
}

const close = (server: Server) => new Promise<void>((r) => server.close(() => r()));

describe('a cloud that compresses its answers without being asked', () => {
  it('gzip: the report counts as delivered and its failedDevices are acted on; nothing compressed in the log', async () => {
    cloud.compressAnswers('gzip').failDevices([{ udid: UDID, message: 'device limit exceeded' }]);
    agent = startAgent(['run'], daemonEnv(adb.env, cloud));
    // The report that carries the phone (the start report may go before its inventory is read) is delivered, its failedDevices read.
    const delivered = await agent.waitForLog((l) => l.msg === 'report delivered' && l.failedDevices === 1, 30_000);
    expect(delivered.devices).toBe(1);
    const refused = await agent.waitForLog((l) => String(l.msg).startsWith(`the cloud did not store device ${UDID}`), 10_000);
    expect(String(refused.msg)).toContain('device limit exceeded');
    // The agent asked for no coding, and was answered in one anyway.
    const put = cloud.putRequests()[0]!;
    expect(put.headers['accept-encoding']).toBe('identity');
    expect(agent.logs().some((l) => String(l.msg).startsWith('report not delivered'))).toBe(false);
    expect(agent.stdout + agent.stderr).not.toMatch(/[\u0000-\u0008\u000e-\u001f\ufffd]/);
  }, 60_000);

  it.each([
    ['deflate (zlib)', 'deflate', deflateSync],
    ['deflate sent raw', 'deflate', deflateRawSync],
    ['br', 'br', brotliCompressSync],
    ['gzip', 'gzip', gzipSync],
  ] as const)('%s: decoded', async (_name, coding, encode) => {
    const body = JSON.stringify({ failedDevices: [{ udid: 'A1', message: 'no' }] });
    const { url, server } = await answering(encode(Buffer.from(body)), coding);
    try {
      const res = await httpRequest({ method: 'PUT', url, headers: {}, body: '{}', timeoutMs: 5_000 });
      expect(res.body).toBe(body);
    } finally {
      await close(server);
    }
  });

  it('a gzip bomb is read no further than the body bound, counted on the decoded size', async () => {
    // 64 MiB of zeros are 64 KiB gzipped: well under the 1 MiB bound on the wire.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const { url, server } = await answering(bomb, 'gzip');
    try {
      await expect(httpRequest({ method: 'PUT', url, headers: {}, body: '{}', timeoutMs: 10_000, maxBodyBytes: 1024 * 1024 })).rejects.toMatchObject({
        code: 'EBODYTOOLARGE',
        message: 'the answer, once decoded (gzip), is longer than 1048576 bytes',
      });
    } finally {
      await close(server);
    }
  });

  it('a coding the agent cannot read, bytes that do not decode, or gzip sent without saying so: not delivered, said in words, no binary in the error', async () => {
    const client = (url: URL) => new CloudClient({ baseUrl: url.origin + '/v1', username: 'u', apiKey: 'k' });
    for (const [bytes, coding, said] of [
      // gzip without saying so: not the API's answer, and its bytes are only counted.
      [gzipSync('{"failedDevices":[]}'), 'identity', /body is not valid JSON.*body starts with: \(\d+ bytes that are not text: compressed or binary\)/],
      [gzipSync('{"failedDevices":[]}'), 'zstd', /the answer came in the content coding "zstd", which the agent cannot read/],
      [Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x01]), 'gzip', /the answer says it is gzip-encoded but does not decode as gzip/],
    ] as const) {
      const { url, server } = await answering(bytes, coding);
      try {
        const error = await client(url)
          .putDevices({ nodeId: 'n', machine: { hostname: 'h' } as never, devices: [] })
          .then(
            () => undefined,
            (e: unknown) => e as Error,
          );
        expect(error?.name).toBe(coding === 'identity' ? 'CloudProtocolError' : 'CloudUnavailableError');
        expect(error?.message).toMatch(said);
        expect(error?.message).not.toMatch(/[\u0000-\u0008\u000e-\u001f\ufffd]/);
      } finally {
        await close(server);
      }
    }
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from '../../src/cloud/http.js';

// A server that closes a kept-alive connection just as the client sends on
// it again (a load balancer's idle timeout): the request goes again, once,
// on a new connection, since the server never saw it.

let server: Server;
let url: URL;
const served: Array<{ socket: Socket; nth: number }> = [];

beforeAll(async () => {
  const perSocket = new Map<Socket, number>();
  server = createServer((req, res) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    served.push({ socket: req.socket, nth });
    // The second request on a connection finds it closed.
    if (nth >= 2 && req.headers['x-close-reused'] === 'yes') return void req.socket.destroy();
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('httpRequest on a reused socket', () => {
  it('sends again on a new connection when a kept-alive socket was closed under it', async () => {
    const request = { method: 'PUT', url, headers: { 'x-close-reused': 'yes' }, body: '{}', timeoutMs: 5_000 };
    expect((await httpRequest(request)).body).toBe('ok');
    const answer = await httpRequest(request);
    expect(answer.body).toBe('ok');
    // The second exchange: the stale socket, then a fresh one.
    expect(served.slice(-2).map((s) => s.nth)).toEqual([2, 1]);
  });

  it('does not send again when the socket was new', async () => {
    const fresh = { method: 'PUT', url, headers: { connection: 'close', 'x-close-reused': 'yes' }, body: '{}', timeoutMs: 5_000 };
    const before = served.length;
    await httpRequest(fresh);
    expect(served.length).toBe(before + 1);
  });
});

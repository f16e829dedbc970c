import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, portSlice } from './adb-server.js';

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

afterEach(() => {
  delete process.env.DEVICE_AGENT_TEST_RESERVED_PORTS;
});

describe('freePort', () => {
  // test/deploy/container.sh draws its ports at once and passes them on, so that a bed it starts never draws one for a
  // phone (CI at 51586f49: a phone took the control port the bed was about to listen on).
  it('never hands out a port its parent reserved (DEVICE_AGENT_TEST_RESERVED_PORTS)', async () => {
    const { from, size } = portSlice();
    const open: number[] = [];
    for (let port = from + size - 1; open.length < 3 && port >= from; port--) if (await listening(port)) open.push(port);
    expect(open).toHaveLength(3);
    const slice = Array.from({ length: size }, (_, i) => from + i);
    process.env.DEVICE_AGENT_TEST_RESERVED_PORTS = slice.filter((p) => !open.includes(p)).join(',');
    const drawn = [await freePort(), await freePort(), await freePort()];
    expect(drawn.sort((a, b) => a - b)).toEqual([...open].sort((a, b) => a - b));
  });
});

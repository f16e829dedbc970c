import { readFileSync } from 'node:fs';
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
  delete process.env.DEVICE_AGENT_TEST_PORT_SLICE;
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

  // The deploy checks run beside each other and beside the soak tier's workers, all in the host's network.
  it('the rollout and systemd checks draw from slices of their own, apart from the workers, the container check and each other', () => {
    const check = (script: string) => /^export DEVICE_AGENT_TEST_PORT_SLICE=(\d+)$/m.exec(readFileSync(`test/deploy/${script}`, 'utf8'))?.[1];
    const ids = ['0', '1', '2', '3', check('rollout.sh'), check('systemd.sh')];
    expect(ids.every((id) => id !== undefined)).toBe(true);
    const ranges = ids.map((id) => {
      process.env.DEVICE_AGENT_TEST_PORT_SLICE = id;
      const { from, size } = portSlice();
      return [from, from + size] as const;
    });
    for (const [i, [a0, a1]] of ranges.entries())
      for (const [b0, b1] of ranges.slice(i + 1)) expect(a1 <= b0 || b1 <= a0, `${a0}-${a1} and ${b0}-${b1} overlap`).toBe(true);
  });
});

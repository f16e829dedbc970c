import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, LEASED, leaseSlice, portSlice, sliceRange } from './free-port.js';

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A node process of the compiled simulator that runs `script` with free-port.js's exports in scope and prints one JSON line; it lives until stdin ends. */
function child(script: string) {
  const lib = fileURLToPath(new URL('../../dist/test/sim/free-port.js', import.meta.url));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DEVICE_AGENT_TEST_PORT_SLICE;
  const proc = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(lib)}); console.log(JSON.stringify(await (async (m) => { ${script} })(m))); process.stdin.resume();`,
    ],
    { env, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = new Promise<unknown>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out));
    });
    proc.once('exit', (code) => reject(new Error(`the child exited (${code}) before printing`)));
  });
  return { proc, line };
}

afterEach(() => {
  delete process.env.DEVICE_AGENT_TEST_RESERVED_PORTS;
  delete process.env.DEVICE_AGENT_TEST_PORT_SLICE;
});

describe('freePort', () => {
  // test/deploy/container.sh draws its ports at once and passes them on, so that a bed it starts never draws one for a
  // phone (CI at 51586f49: a phone took the control port the bed was about to listen on).
  it('never hands out a port its parent reserved (DEVICE_AGENT_TEST_RESERVED_PORTS)', async () => {
    const { from, size } = await portSlice();
    const open: number[] = [];
    for (let port = from + size - 1; open.length < 3 && port > from; port--) if (await listening(port)) open.push(port);
    expect(open).toHaveLength(3);
    const slice = Array.from({ length: size }, (_, i) => from + i);
    process.env.DEVICE_AGENT_TEST_RESERVED_PORTS = slice.filter((p) => !open.includes(p)).join(',');
    const drawn = [await freePort(), await freePort(), await freePort()];
    expect(drawn.sort((a, b) => a - b)).toEqual([...open].sort((a, b) => a - b));
  });

  // The deploy checks run beside each other and beside the soak tier's workers, all in the host's network.
  it('the rollout and systemd checks draw from slices of their own, apart from the workers, the container check and each other', () => {
    const check = (script: string) => /^export DEVICE_AGENT_TEST_PORT_SLICE=(\d+)$/m.exec(readFileSync(`test/deploy/${script}`, 'utf8'))?.[1];
    const fixed = [check('rollout.sh'), check('systemd.sh')];
    expect(fixed.every((id) => id !== undefined && !LEASED.includes(Number(id)) && id !== '0')).toBe(true);
    const ranges = [0, ...LEASED, ...fixed.map(Number)].map((id) => sliceRange(id)).map(({ from, size }) => [from, from + size] as const);
    for (const [i, [a0, a1]] of ranges.entries())
      for (const [b0, b1] of ranges.slice(i + 1)) expect(a1 <= b0 || b1 <= a0, `${a0}-${a1} and ${b0}-${b1} overlap`).toBe(true);
  });

  // CI at 8e465214: vitest had handed pool id 2 to a new fork while the old one ran on, and the new fork drew the port
  // of the old one's unplugged phone for an adb server.
  it('two live test processes with one VITEST_POOL_ID draw from slices apart', async () => {
    const { index, from, size } = await portSlice();
    const other = child(
      'const s = await m.portSlice(); const ports = []; for (let i = 0; i < 50; i++) ports.push(await m.freePort()); return { index: s.index, ports };',
    );
    try {
      const { index: theirs, ports } = (await other.line) as { index: number; ports: number[] };
      expect(LEASED).toContain(theirs);
      expect(theirs).not.toBe(index);
      expect(ports.filter((p) => p >= from && p < from + size)).toEqual([]);
    } finally {
      other.proc.kill();
    }
  });

  it('a lease ends with its process, however it ends', async () => {
    const holder = child('const s = await m.leaseSlice([0], 0); return s.index;');
    try {
      expect(await holder.line).toBe(0);
      await expect(leaseSlice([0], 0)).rejects.toThrow(/no test port slice free/);
      holder.proc.kill('SIGKILL');
      const lease = await leaseSlice([0], 10_000);
      expect(lease.index).toBe(0);
      await lease.release();
    } finally {
      holder.proc.kill('SIGKILL');
    }
  });
});

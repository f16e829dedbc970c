import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log/logger.js';
import { silentLogger } from '../../src/log/logger.js';
import { StatusServer } from '../../src/status/server.js';
import { parseEndpointState } from '../../src/status/endpoint-state.js';

// The status endpoint's own lifecycle over real sockets: a port held by
// another process (issue 33, finding 7) and the state it keeps for doctor.

function recorder() {
  const lines: Array<{ level: string; msg: string }> = [];
  const logger = {
    ...silentLogger(),
    error: (_o: unknown, m?: string) => void lines.push({ level: 'error', msg: String(m) }),
    info: (_o: unknown, m?: string) => void lines.push({ level: 'info', msg: String(m) }),
    warn: (_o: unknown, m?: string) => void lines.push({ level: 'warn', msg: String(m) }),
  };
  return { logger: logger as unknown as Logger, lines };
}

const source = { health: () => ({ ok: true, reasons: [], brief: [] }), metrics: () => 'device_agent_up 1\n' };
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.destroy());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

const waitFor = async (check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not within the time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('StatusServer', () => {
  it('on a port held by another process: one line saying so, the state kept for doctor, and it listens once the port is free', async () => {
    const { server: holder, port } = await holdPort();
    const stateFile = join(mkdtempSync(join(tmpdir(), 'da-status-')), 'status-endpoint.json');
    const { logger, lines } = recorder();
    const status = new StatusServer(`127.0.0.1:${port}`, source, logger, { stateFile, retryMs: 100 });
    open.push({ close: () => status.stop() });
    expect(await status.start()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 450));
    // Several tries meanwhile, one line.
    expect(lines).toEqual([
      {
        level: 'error',
        msg: `the status endpoint cannot listen on 127.0.0.1:${port}: the port is held by another process (see which: ss -ltnp 'sport = :${port}'); /healthz and /metrics are off, and it tries again every 0.1 s. Free the port, or set DEVICE_AGENT_STATUS_LISTEN to a free HOST:PORT or off`,
      },
    ]);
    expect(parseEndpointState(readFileSync(stateFile, 'utf8'))).toMatchObject({
      pid: process.pid,
      listen: `127.0.0.1:${port}`,
      listening: false,
      problem: expect.stringContaining('held by another process'),
    });
    await new Promise((r) => holder.close(r));
    await waitFor(() => lines.length === 2);
    expect(lines[1]).toEqual({ level: 'info', msg: 'status endpoint listening (/healthz, /metrics)' });
    expect(parseEndpointState(readFileSync(stateFile, 'utf8'))).toMatchObject({ listening: true, bound: `127.0.0.1:${port}` });
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect([res.status, res.headers.get('server'), await res.text()]).toEqual([200, 'device-agent', 'ok\n']);
  });

  it('stops trying once stopped', async () => {
    const { server: holder, port } = await holdPort();
    open.push({ close: () => new Promise((r) => holder.close(r)) });
    const { logger, lines } = recorder();
    const status = new StatusServer(`127.0.0.1:${port}`, source, logger, { retryMs: 50 });
    await status.start();
    await status.stop();
    await new Promise((r) => holder.close(r));
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.map((l) => l.level)).toEqual(['error']);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('a view that throws: 500 with one line blaming the agent and whom to tell, and the endpoint keeps answering', async () => {
    const { logger, lines } = recorder();
    let broken = true;
    const failing = {
      health: () => ({ ok: true, reasons: [], brief: [] }),
      metrics: () => {
        if (broken) throw new Error('cannot read properties of undefined');
        return 'device_agent_up 1\n';
      },
    };
    const status = new StatusServer('127.0.0.1:0', failing, logger);
    open.push({ close: () => status.stop() });
    const listen = (await status.start())!;
    const metrics = await fetch(`http://${listen}/metrics`, { signal: AbortSignal.timeout(5_000) });
    expect(metrics.status).toBe(500);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
      "the status endpoint failed to answer /metrics: a bug in the agent, not a fault of the phones or the host; it answered 500 and keeps serving. Report it to the agent's maintainers with this line",
    ]);
    broken = false;
    expect(await (await fetch(`http://${listen}/metrics`, { signal: AbortSignal.timeout(5_000) })).text()).toBe('device_agent_up 1\n');
    expect((await fetch(`http://${listen}/healthz`, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
  });

  it('a state file it cannot keep: one warning naming the file, what it costs and what to do; the endpoint answers', async () => {
    const { logger, lines } = recorder();
    const dir = mkdtempSync(join(tmpdir(), 'da-status-state-'));
    // A file where the state directory should be: no write there, even as root.
    writeFileSync(join(dir, 'state'), 'a file\n');
    const stateFile = join(dir, 'state', 'status-endpoint.json');
    const status = new StatusServer('127.0.0.1:0', source, logger, { stateFile });
    open.push({ close: () => status.stop() });
    const listen = (await status.start())!;
    expect((await fetch(`http://${listen}/healthz`, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
    const warned = lines.filter((l) => l.level === 'warn').map((l) => l.msg);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(
      new RegExp(
        `^cannot keep the status endpoint's state in ${stateFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+; the endpoint works, but doctor cannot say why it is off when it is\\. Make the state directory writable for the agent's user$`,
      ),
    );
  });
});

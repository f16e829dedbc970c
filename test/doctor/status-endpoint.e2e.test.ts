import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStatusEndpoint } from '../../src/doctor/status-endpoint.js';
import { silentLogger } from '../../src/log/logger.js';
import { StatusServer } from '../../src/status/server.js';
import { processIdentity } from '../../src/util/process-identity.js';

// doctor's look at the status endpoint, over real sockets: the agent's, another
// program on the port, nothing, and the daemon's own word when it could not listen.

const stateDir = () => mkdtempSync(join(tmpdir(), 'da-doc-status-'));
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  closers.push(() => new Promise((r) => server.close(r)));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const s = createServer();
  const port = await new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  await new Promise((r) => s.close(r));
  return port;
}

describe('checkStatusEndpoint', () => {
  it('says the agent answers, healthy or not, by its Server header', async () => {
    let ok = true;
    const status = new StatusServer(
      '127.0.0.1:0',
      { health: () => ({ ok, reasons: ok ? [] : ['adb device tracking is down'], brief: ok ? [] : ['adb device tracking is down'] }), metrics: () => '' },
      silentLogger(),
      { nodeId: 'lab-node-7' },
    );
    const bound = (await status.start())!;
    closers.push(() => status.stop());
    const nodeId = { id: 'lab-node-7', from: 'kept in /var/lib/device-agent/node-id' };
    expect(await checkStatusEndpoint({ listen: bound, stateDir: stateDir(), nodeId })).toEqual([
      { status: 'ok', finding: `status endpoint: the agent answers on http://${bound}, healthy` },
    ]);
    ok = false;
    expect((await checkStatusEndpoint({ listen: bound, stateDir: stateDir(), nodeId }))[0]).toMatchObject({
      status: 'warn',
      finding: `status endpoint: the agent answers on http://${bound}, unhealthy (HTTP 503): adb device tracking is down`,
    });
  });

  it("fails when another agent holds the port (another checkout, another state directory): its node id is not this host's (issue 61)", async () => {
    // Healthy, and not the one this host keeps: the doctor said "the agent answers ..., healthy" of it.
    const status = new StatusServer('127.0.0.1:0', { health: () => ({ ok: true, reasons: [], brief: [] }), metrics: () => '' }, silentLogger(), {
      nodeId: 'other-checkout-ü',
    });
    const bound = (await status.start())!;
    closers.push(() => status.stop());
    const dir = stateDir();
    const [mismatch] = await checkStatusEndpoint({ listen: bound, stateDir: dir, nodeId: { id: 'lab-node-7', from: 'DEVICE_AGENT_NODE_ID' } });
    expect(mismatch).toEqual({
      status: 'fail',
      finding: `status endpoint: another device-agent answers on http://${bound}: its node id is other-checkout-ü, not this host's lab-node-7 (DEVICE_AGENT_NODE_ID): another checkout or state directory holds the port; a scraper would read its /healthz and /metrics for this host's`,
      advice: expect.stringMatching(/^stop the other agent \(ss -ltnp 'sport = :\d+' shows its pid\), or give one of them another DEVICE_AGENT_STATUS_LISTEN/),
    });
    // This configuration keeps no node id yet: whatever agent answers is not its own.
    const [none] = await checkStatusEndpoint({ listen: bound, stateDir: dir });
    expect(none).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(
        `another device-agent answers on http://${bound}: its node id is other-checkout-ü, and this configuration keeps none yet (state directory ${dir})`,
      ),
    });
  });

  it('cannot tell whose an agent is that says no node id (an older version, or basic authentication asked) unless its daemon kept that it listens there', async () => {
    const port = await listen(createHttpServer((_req, res) => res.writeHead(200, { server: 'device-agent' }).end('ok\n')));
    const listenAt = `127.0.0.1:${port}`;
    const dir = stateDir();
    expect((await checkStatusEndpoint({ listen: listenAt, stateDir: dir, nodeId: { id: 'n', from: 'x' } }))[0]).toMatchObject({
      status: 'warn',
      finding: expect.stringContaining(
        `an agent answers on http://${listenAt} but does not say its node id, and no daemon of this state directory (${dir}) says it listens there`,
      ),
    });
    // Kept by this very process, alive, listening there: it is this host's daemon.
    writeFileSync(
      join(dir, 'status-endpoint.json'),
      JSON.stringify({
        pid: process.pid,
        started: processIdentity(process.pid),
        since: '2026-11-26T01:00:00.000Z',
        listen: listenAt,
        listening: true,
        bound: listenAt,
      }),
    );
    expect(await checkStatusEndpoint({ listen: listenAt, stateDir: dir, nodeId: { id: 'n', from: 'x' } })).toEqual([
      { status: 'ok', finding: `status endpoint: the agent answers on http://${listenAt}, healthy` },
    ]);
  });

  it('fails when another program holds the port and answers HTTP: a scraper would read it for the agent', async () => {
    const port = await listen(createHttpServer((_req, res) => res.writeHead(200, { server: 'nginx' }).end('ok\n')));
    expect(await checkStatusEndpoint({ listen: `127.0.0.1:${port}`, stateDir: stateDir() })).toEqual([
      {
        status: 'fail',
        finding: `status endpoint: http://127.0.0.1:${port} is held by another program, not the agent (it answered HTTP 200, Server: nginx); the agent's /healthz and /metrics are not there`,
        advice: expect.stringContaining('free the port'),
      },
    ]);
  });

  it('fails, without hanging, when another program holds the port and never answers', async () => {
    const held: Socket[] = [];
    const port = await listen(createServer((s) => void held.push(s)));
    closers.unshift(async () => held.forEach((s) => s.destroy()));
    const t0 = Date.now();
    const [item] = await checkStatusEndpoint({ listen: `127.0.0.1:${port}`, stateDir: stateDir(), timeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(item).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining('is held by another program: it took the connection and gave no HTTP answer within 0.3 s'),
    });
  });

  it('names the agent, not another program, when the port is its own and it is slow to answer', async () => {
    // Right after systemctl start on a loaded host (the README runs doctor next), the daemon had
    // bound the port and kept so, but answered later than doctor waited.
    const held: Socket[] = [];
    const port = await listen(createServer((s) => void held.push(s)));
    closers.unshift(async () => held.forEach((s) => s.destroy()));
    const dir = stateDir();
    const listenAt = `127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'status-endpoint.json'),
      JSON.stringify({ pid: process.pid, since: '2026-11-26T01:00:00.000Z', listen: listenAt, listening: true, bound: listenAt }),
    );
    expect(await checkStatusEndpoint({ listen: listenAt, stateDir: dir, timeoutMs: 300 })).toEqual([
      {
        status: 'warn',
        finding: `status endpoint: the agent (pid ${process.pid}) listens on http://${listenAt} but gave no HTTP answer within 0.3 s: it is busy (starting, or the host is loaded) or stuck; a scrape would time out the same way`,
        advice: expect.stringContaining('journalctl -u device-agent'),
      },
    ]);
  });

  it('fails naming the daemon and its reason when the daemon kept that it cannot listen', async () => {
    const port = await freePort();
    const dir = stateDir();
    writeFileSync(
      join(dir, 'status-endpoint.json'),
      JSON.stringify({
        pid: process.pid,
        since: '2026-11-24T03:00:00.000Z',
        listen: `127.0.0.1:${port}`,
        listening: false,
        problem: 'the port is held by another process',
      }),
    );
    expect(await checkStatusEndpoint({ listen: `127.0.0.1:${port}`, stateDir: dir })).toEqual([
      {
        status: 'fail',
        finding: `status endpoint: the daemon (pid ${process.pid}) cannot listen on 127.0.0.1:${port} since 2026-11-24T03:00:00.000Z: the port is held by another process; /healthz and /metrics are off`,
        advice: expect.stringContaining('free the port'),
      },
    ]);
  });

  it("does not take a live pid handed out again for the daemon: another program's silent port and a stale 'cannot listen' are said as they are", async () => {
    // After a reboot the kept pid is often another service's: alive, but not the process that kept the state.
    const other = 'another-boot/12345';
    const held: Socket[] = [];
    const port = await listen(createServer((s) => void held.push(s)));
    closers.unshift(async () => held.forEach((s) => s.destroy()));
    const dir = stateDir();
    const listenAt = `127.0.0.1:${port}`;
    const keep = (state: object) =>
      writeFileSync(join(dir, 'status-endpoint.json'), JSON.stringify({ pid: process.pid, since: '2026-11-26T01:00:00.000Z', listen: listenAt, ...state }));
    keep({ started: other, listening: true, bound: listenAt });
    expect((await checkStatusEndpoint({ listen: listenAt, stateDir: dir, timeoutMs: 300 }))[0]).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(`http://${listenAt} is held by another program: it took the connection and gave no HTTP answer`),
    });
    // The same state kept by this very process: the agent, slow.
    keep({ started: processIdentity(process.pid), listening: true, bound: listenAt });
    expect((await checkStatusEndpoint({ listen: listenAt, stateDir: dir, timeoutMs: 300 }))[0]).toMatchObject({
      status: 'warn',
      finding: expect.stringContaining(`the agent (pid ${process.pid}) listens on http://${listenAt}`),
    });
    // A daemon that could not listen, long gone, its pid another's now: nothing listens, the port is free.
    const free = await freePort();
    writeFileSync(
      join(dir, 'status-endpoint.json'),
      JSON.stringify({
        pid: process.pid,
        started: other,
        since: '2026-11-24T03:00:00.000Z',
        listen: `127.0.0.1:${free}`,
        listening: false,
        problem: 'the port is held by another process',
      }),
    );
    expect((await checkStatusEndpoint({ listen: `127.0.0.1:${free}`, stateDir: dir }))[0]).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining(`nothing listens on http://127.0.0.1:${free}: the daemon is not running, and the port is free for it`),
    });
  });

  it('keeps who it is beside its pid, for doctor', async () => {
    const dir = stateDir();
    const status = new StatusServer('127.0.0.1:0', { health: () => ({ ok: true, reasons: [], brief: [] }), metrics: () => '' }, silentLogger(), {
      stateFile: join(dir, 'status-endpoint.json'),
    });
    await status.start();
    closers.push(() => status.stop());
    expect(JSON.parse(readFileSync(join(dir, 'status-endpoint.json'), 'utf8'))).toMatchObject({
      pid: process.pid,
      started: processIdentity(process.pid),
      listening: true,
    });
  });

  it('is content when nothing listens and no daemon runs (doctor before the first start): the port is free for it', async () => {
    const port = await freePort();
    expect(await checkStatusEndpoint({ listen: `127.0.0.1:${port}`, stateDir: stateDir() })).toEqual([
      { status: 'ok', finding: `status endpoint: nothing listens on http://127.0.0.1:${port}: the daemon is not running, and the port is free for it` },
    ]);
    expect(await checkStatusEndpoint({ listen: 'off', stateDir: stateDir() })).toEqual([
      { status: 'ok', finding: 'status endpoint: off (statusListen), no /healthz or /metrics' },
    ]);
  });
});

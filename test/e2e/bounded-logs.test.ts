import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { waitFor } from '../support/wait.js';

// Issue 23 item 4: whatever the cloud answers, the daemon's log stays
// readable. Each case runs the agent as its own process against the cloud
// double and counts its lines.

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

const udids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ udid: `${prefix}${String(i).padStart(5, '0')}`, message: 'device belongs to another node' }));

describe('a cloud whose failedDevices names 5,000 udids the report did not carry', () => {
  it('the same 5,000 on every report: one line naming a few of them and the count, not one line per udid', async () => {
    await bed.plug('FLOOD001');
    cloud.answerFailedDevices(udids('ELSEWHERE', 5_000));
    const a = bed.run({ DEVICE_AGENT_SCHEDULE: '* * * * * *' });
    await cloud.waitForPut(() => true, 20_000);
    const t0 = Date.now();
    // Four more reports answered the same: the agent has read each answer before it sent the next.
    const since = (r: { receivedAt: number }) => cloud.putRequests().filter((x) => x.receivedAt >= t0 && x.receivedAt <= r.receivedAt).length;
    await cloud.waitForPut((r) => r.receivedAt >= t0 && since(r) >= 5, 30_000);
    const warnings = a.logs().filter((l) => l.level === 'warn');
    const about = warnings.filter((l) => String(l.msg).includes('did not carry'));
    expect(about).toHaveLength(1);
    expect(String(about[0]?.msg)).toMatch(
      /named 5000 devices in failedDevices that the report did not carry \(ELSEWHERE00000, ELSEWHERE00001, .* and 4990 more\)/,
    );
    expect(warnings.length).toBeLessThanOrEqual(3);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);

  it('5,000 new ones on every report: at most 11 such lines a minute, the rest counted in a summary', async () => {
    await bed.plug('FLOOD002');
    let round = 0;
    cloud.answerFailedDevices(() => udids(`R${round++}X`, 5_000));
    const a = bed.run({ DEVICE_AGENT_SCHEDULE: '* * * * * *' });
    await cloud.waitForPut(() => true, 20_000);
    // Twelve answered reports, each naming 5,000 new udids (was: 15 s on the 1 s schedule, then at least 12).
    await cloud.waitForPut(() => cloud.putRequests().filter((r) => r.answer !== undefined).length >= 12, 40_000);
    const puts = cloud.putRequests().length;
    expect(puts).toBeGreaterThanOrEqual(12);
    const about = a.logs().filter((l) => String(l.msg).includes('did not carry'));
    expect(about.length).toBeLessThanOrEqual(10);
    expect(a.logs().length).toBeLessThan(puts + 40);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});

/** A TCP proxy to the adb server that cuts every connection `lifeMs` after it opens (a crash-looping server, a tunnel cutting idle links). */
async function cuttingProxy(target: number, lifeMs: number): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    setTimeout(() => {
      client.destroy();
      upstream.destroy();
    }, lifeMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('an adb server connection that dies 150 ms after it opens, over and over', () => {
  it('at most 11 "tracking ended" lines a minute, however often it reconnects', async () => {
    await bed.plug('TRACK001');
    const proxy = await cuttingProxy(bed.adb.port, 150);
    try {
      const a = bed.run({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${proxy.port}` });
      await a.waitForLog((l) => l.msg === 'device-agent started', 20_000);
      // (was: 15 s) The growing wait and its lines are test/util/reconnects.test.ts's, on virtual time.
      await waitFor(() => proxy.connections() >= 10, 30_000, '10 connections through the proxy');
      // The loop ran (each tracker and request a connection through the proxy), and said so a bounded number of times.
      expect(proxy.connections()).toBeGreaterThanOrEqual(10);
      const ended = a.logs().filter((l) => String(l.msg).startsWith('adb device tracking ended'));
      expect(ended.length).toBeGreaterThanOrEqual(1);
      expect(ended.length).toBeLessThanOrEqual(10);
      // Every other kind of line the loop makes is bounded the same way, but
      // 'report delivered': one per report, so as many as the reports, whose
      // rate on a reconnect loop is the fleet branch's part of item 3.
      const byMsg = new Map<string, number>();
      for (const l of a.logs()) if (l.msg !== 'report delivered') byMsg.set(String(l.msg), (byMsg.get(String(l.msg)) ?? 0) + 1);
      for (const [msg, n] of byMsg) expect(n, msg).toBeLessThanOrEqual(11);
      expect(a.child.exitCode).toBeNull();
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed } from './daemon-bed.js';
import { sleep, waitFor } from '../support/wait.js';

// Signals the daemon gets at awkward moments, beyond the ones of
// test/e2e/reliability.test.ts (SIGTERM while the first report's PUT hangs or
// a phone is probed, one SIGHUP).

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

describe('SIGTERM while the daemon is still starting', () => {
  it('(an adb server that accepts and never answers holds the start for 20 s) exits 0 at once, saying so', async () => {
    const silent = net.createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const a = bed.run({ ADB_SERVER_SOCKET: `tcp:127.0.0.1:${(silent.address() as AddressInfo).port}` });
      // Past the launcher and the settings (its first line; the handlers come
      // right after it), in the middle of the start. A fixed 2 s from the spawn
      // was not always past them on a loaded machine: the SIGTERM then killed
      // the process before it listened (signal SIGTERM, no exit code).
      await a.waitForLog((l) => String(l.msg).startsWith('settings: '), 20_000);
      await sleep(1_000);
      expect(a.logs().some((l) => l.msg === 'device-agent started')).toBe(false);
      const t0 = Date.now();
      const end = await a.stop('SIGTERM', 10_000);
      expect({ code: end.code, signal: end.signal }).toEqual({ code: 0, signal: null });
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(a.logs().some((l) => l.msg === 'stopping' && l.signal === 'SIGTERM')).toBe(true);
    } finally {
      silent.close();
    }
  }, 40_000);
});

describe('a second SIGTERM while the first waits for the report in flight', () => {
  it('exits 0 at once with a line saying the report in flight is abandoned', async () => {
    await bed.plug('TERM2001');
    cloud.setDelay(60_000);
    const a = bed.run({ DEVICE_AGENT_SHUTDOWN_TIMEOUT_SECONDS: '9' });
    await a.waitForLog((l) => l.msg === 'device-agent started');
    // The start report in flight: the double records a PUT when it arrives, and holds its answer.
    await waitFor(() => cloud.putRequests().length > 0, 20_000, 'the start report at the cloud');
    a.child.kill('SIGTERM');
    await a.waitForLog((l) => l.msg === 'waiting for the report in flight to finish');
    const t0 = Date.now();
    const end = await a.stop('SIGTERM', 10_000);
    expect({ code: end.code, signal: end.signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(a.logs().some((l) => l.level === 'warn' && String(l.msg).startsWith('a second SIGTERM'))).toBe(true);
  }, 40_000);
});

describe('a flood of SIGHUPs (a reload loop, a script gone wrong)', () => {
  it('200 in 4 s: a few reports, a few log lines, the daemon keeps running', async () => {
    await bed.plug('HUPF0001');
    const a = bed.run();
    await cloud.waitForPut(() => true, 20_000);
    const t0 = Date.now();
    for (let i = 0; i < 200; i++) {
      a.child.kill('SIGHUP');
      await sleep(20);
    }
    // 4 s alone; longer on a loaded machine, which the bound below follows.
    const flood = Date.now() - t0;
    await sleep(6_000);
    const puts = cloud.putRequests().filter((r) => r.receivedAt >= t0);
    // At most one report per 5 s for SIGHUPs, the first at once: 2 in the 4 s, 1 after.
    expect(puts.length).toBeGreaterThanOrEqual(1);
    expect(puts.length).toBeLessThanOrEqual(2 + Math.ceil(flood / 5_000));
    expect(a.logs().filter((l) => String(l.msg).startsWith('SIGHUP')).length).toBeLessThanOrEqual(11);
    expect(a.logs().filter((l) => l.msg === 'a full report was asked for').length).toBeLessThanOrEqual(11);
    expect(a.child.exitCode).toBeNull();
  }, 60_000);
});

describe('a stray SIGUSR1 or SIGUSR2 (a logrotate script meant for another service)', () => {
  it('opens no inspector and ends nothing: one line says it is ignored, and the daemon keeps reporting', async () => {
    await bed.plug('USR10001');
    const a = bed.run();
    await cloud.waitForPut(() => true, 20_000);
    a.child.kill('SIGUSR1');
    a.child.kill('SIGUSR2');
    await a.waitForLog((l) => l.msg === 'SIGUSR2 ignored: the agent takes SIGHUP (a full report now) and SIGTERM/SIGINT (stop)', 5_000);
    // Node's default for SIGUSR1 starts its inspector, which says so on stderr.
    expect(a.stderr).not.toMatch(/Debugger listening/);
    const t0 = Date.now();
    a.child.kill('SIGHUP');
    await cloud.waitForPut((r) => r.receivedAt >= t0, 15_000);
    expect(a.child.exitCode).toBeNull();
    expect(a.child.signalCode).toBeNull();
  }, 40_000);
});

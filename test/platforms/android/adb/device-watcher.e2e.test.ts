import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdbClient } from '../../../../src/platforms/android/adb/client.js';
import { DeviceWatcher, type DeviceWatcherOptions } from '../../../../src/platforms/android/adb/device-watcher.js';
import { captureLogger } from '../../../log/capture.js';
import { AdbServer } from '../../../sim/adb-server.js';
import { TrackerCutter } from '../../../sim/tracker-cutter.js';
import { sleep } from '../../../support/wait.js';

// The watcher against the real adb server, through a relay that cuts the
// device tracker's connection 50 ms after it starts (issue 23, item 3: a
// crash-looping adb server or a tunnel that cuts idle connections).

const adb = new AdbServer();
let cutter: TrackerCutter;
beforeAll(async () => {
  await adb.start();
  cutter = new TrackerCutter({ adbPort: adb.port, cutAfterMs: 50 });
  await cutter.start();
});

afterAll(async () => {
  await cutter.stop();
  await adb.stop();
});

/** A watcher of the real adb server through the cutter, which starts cutting; its log lines captured. */
function watchThroughCutter(options: Partial<DeviceWatcherOptions> = {}) {
  cutter.cutting = true;
  const { logger, lines } = captureLogger();
  const client = new AdbClient({ host: '127.0.0.1', port: cutter.port, source: 'test' });
  return { watcher: new DeviceWatcher(client, { reconcileMs: 30_000, logger, stableMs: 2_000, ...options }), lines };
}

describe('DeviceWatcher', () => {
  it('backs off a tracker that dies right after connecting, says so twice, and starts over once a connection holds', async () => {
    const { watcher, lines } = watchThroughCutter();
    let connects = 0;
    watcher.on('connected', () => connects++);
    await watcher.start();
    await sleep(6_000);
    // Waits of about 0.25, 0.5, 1, 2, 4 s (each between half and all of it),
    // not a reconnect every 125-250 ms (about 30 in 6 s before).
    expect(connects).toBeGreaterThanOrEqual(3);
    expect(connects).toBeLessThanOrEqual(7);
    const warnings = lines()
      .filter((l) => l.level === 'warn')
      .map((l) => String(l.msg));
    expect(warnings).toEqual([expect.stringContaining('adb device tracking ended'), expect.stringContaining('keeps ending right after it connects')]);
    // Here the server ran all along and something between cut the connection: the line claims no restart, and names both.
    expect(warnings[0]).not.toMatch(/was restarted or killed/);
    expect(warnings[0]).toMatch(
      /the connection to the adb server closed \(the server restarted or stopped, or something between the agent and the server cut it\), not a fault of the phones/,
    );

    // The trackers live again: the next connection holds, and a cut after it is reconnected at once.
    cutter.cutting = false;
    for (let waited = 0; !watcher.alive && waited < 12_000; waited += 100) await sleep(100);
    await sleep(2_500);
    expect(watcher.alive).toBe(true);
    const before = connects;
    const said = (text: string) => lines().filter((l) => String(l.msg).includes(text)).length;
    const [endedBefore, resumedBefore] = [said('adb device tracking ended'), said('device tracking resumed')];
    await sleep(2_500);
    cutter.cutOpen();
    await sleep(1_000);
    expect(connects).toBe(before + 1);
    // An end that was logged is closed by a line when the next connection works, even one that never failed
    // (the adb server came back before the reconnect): the operator is not left with "ended" as the last word.
    expect([said('adb device tracking ended'), said('device tracking resumed')]).toEqual([endedBefore + 1, resumedBefore + 1]);
    watcher.stop();
  }, 40_000);

  it('a tracker that goes on ending: a summary now and then with the count, naming the adb server and the path to it, not the phones', async () => {
    const { watcher, lines } = watchThroughCutter({ reconnectMaxMs: 400, summaryMs: 1_500 });
    await watcher.start();
    await sleep(5_000);
    watcher.stop();
    cutter.cutting = false;
    const summaries = lines().filter((l) => / more times soon after connecting/.test(String(l.msg)));
    // The first line and the flapping one come first; then at most one summary each 1.5 s, each with its count.
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(3);
    for (const s of summaries) {
      expect(s.level).toBe('warn');
      expect(s.ends).toBeGreaterThanOrEqual(1);
      expect(String(s.msg)).toBe(
        `adb device tracking ended ${String(s.ends)} more times soon after connecting; still reconnecting. The adb server at ${String(s.adb)} or the path to it ` +
          "(a tunnel, a proxy), not the phones: check the adb server's log and the path to it",
      );
    }
  }, 20_000);

  it('no adb server at its address: one line with the connection error, not one per reconnect', async () => {
    const { logger, lines } = captureLogger();
    // A port nobody listens on: taken, then freed.
    const closed = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const watcher = new DeviceWatcher(new AdbClient({ host: '127.0.0.1', port: closed, source: 'test' }), {
      reconcileMs: 30_000,
      logger,
      reconnectMaxMs: 300,
    });
    await watcher.start().catch(() => undefined);
    await sleep(3_000);
    watcher.stop();
    const warned = lines().filter((l) => l.level === 'warn');
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toBe(
      `no adb server at tcp:127.0.0.1:${closed} (test) (ECONNREFUSED); start one with "adb start-server" (or the device-agent-adb systemd unit), ` +
        'or point ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT at it',
    );
    expect(watcher.alive).toBe(false);
  }, 20_000);
});

// IosWatcher against a simulated usbmuxd that cuts every Listen connection
// right after answering it, as a crash-looping usbmuxd does (issue 23,
// item 3): the reconnects back off instead of starting over at each
// connect, the log says it twice, and the phone stays known.
import { afterEach, describe, expect, it } from 'vitest';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { IosWatcher } from '../../../src/platforms/ios/watcher.js';
import { captureLogger } from '../../log/capture.js';
import { SimUsbmuxd } from '../../sim-ios/usbmuxd.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('IosWatcher reconnects', () => {
  it('backs off a Listen connection that dies right after it opens, and starts over once one holds', async () => {
    const sim = new SimUsbmuxd();
    await sim.start();
    cleanups.push(() => sim.dispose());
    const phone = sim.plug({ profile: 'iphone-13-ios16' });
    sim.cutListenAfterMs = 30;
    const { logger, lines } = captureLogger();
    // The agent's waits (250 ms to 10 s) scaled down by about 6.
    const watcher = new IosWatcher({
      address: parseUsbmuxdAddress(sim.address),
      reconcileMs: 60_000,
      stepTimeoutMs: 500,
      logger,
      reconnectMinMs: 40,
      reconnectMaxMs: 1_600,
      stableMs: 1_000,
    });
    cleanups.push(() => watcher.stop());
    await watcher.start();
    await new Promise((r) => setTimeout(r, 3_000));
    const listens = sim.requests.filter((r) => r === 'Listen').length;
    // Waits of about 40, 80, 160, 320, 640, 1280 ms (each between half and all of it); before, every 20-40 ms: about 80.
    expect(listens).toBeGreaterThanOrEqual(4);
    expect(listens).toBeLessThanOrEqual(9);
    const warnings = lines()
      .filter((l) => l.level === 'warn')
      .map((l) => String(l.msg));
    expect(warnings).toEqual([expect.stringContaining('usbmuxd connection ended'), expect.stringContaining('keeps ending right after it opens')]);
    expect([...watcher.devices.keys()]).toEqual([phone.udid]);

    // Every Listen answered so far is cut 30 ms after its answer, the one open now too: wait for one
    // answered after this, then for it to hold past stableMs. (Waiting for `alive` alone once took a
    // connection about to be cut for one that held, under CI's load at fd21902: the wait had grown.)
    sim.cutListenAfterMs = undefined;
    const listenCount = () => sim.requests.filter((r) => r === 'Listen').length;
    const cut = listenCount();
    for (let waited = 0; !(watcher.alive && listenCount() > cut) && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 1_200));
    expect(watcher.alive).toBe(true);
    // A cut after a connection that held is followed by a reconnect within the shortest wait.
    const before = listenCount();
    await sim.restart();
    const restarted = Date.now();
    while (listenCount() === before && Date.now() - restarted < 3_000) await new Promise((r) => setTimeout(r, 10));
    // 20-40 ms (with the machine's delays), not the grown 0.8-1.6 s.
    expect(Date.now() - restarted).toBeLessThan(750);
    expect(listenCount()).toBe(before + 1);
  });
});

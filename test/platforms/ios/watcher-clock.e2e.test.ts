// IosWatcher's timing on the injected clock (issue 41), against the
// simulated usbmuxd: its reconciliation and its reconnects run on the timers
// it is handed, so virtual time drives them and real time does not.
import { afterEach, describe, expect, it } from 'vitest';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { silentLogger } from '../../../src/log/logger.js';
import { IosWatcher } from '../../../src/platforms/ios/watcher.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { SimUsbmuxd } from '../../sim-ios/usbmuxd.js';
import { sleep } from '../../support/wait.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

describe('IosWatcher on the injected clock', () => {
  it('reconciles every reconcileMs of its clock, and reconnects after the wait of its clock, not of real time', async () => {
    const sim = new SimUsbmuxd();
    await sim.start();
    cleanups.push(() => sim.dispose());
    const time = new VirtualTime();
    const watcher = new IosWatcher({
      address: parseUsbmuxdAddress(sim.address),
      reconcileMs: 10_000,
      stepTimeoutMs: 500,
      logger: silentLogger(),
      // Short, so that a reconnect on real time would show within the 300 ms below.
      reconnectMinMs: 100,
      reconnectMaxMs: 100,
      clock: time.clock(),
    });
    cleanups.push(() => watcher.stop());
    const asked = (request: string): number => sim.requests.filter((r) => r === request).length;
    await watcher.start();
    expect(asked('ListDevices')).toBe(1);
    time.advance(9_999);
    await sleep(200);
    expect(asked('ListDevices')).toBe(1);
    time.advance(1);
    await until(() => asked('ListDevices') === 2);
    time.advance(10_000);
    await until(() => asked('ListDevices') === 3);

    // usbmuxd restarts: the Listen connection ends, and the next one waits for the clock.
    const listens = asked('Listen');
    await sim.restart();
    await until(() => !watcher.alive);
    await sleep(300);
    expect(asked('Listen')).toBe(listens);
    time.advance(100);
    await until(() => watcher.alive);
    expect(asked('Listen')).toBe(listens + 1);
  });
});

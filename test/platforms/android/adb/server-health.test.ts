import { describe, expect, it } from 'vitest';
import { AdbServerHealth } from '../../../../src/platforms/android/adb/server-health.js';
import { VirtualTime } from '../../../support/virtual-time.js';
import { captureLogger } from '../../../log/capture.js';

// The adb server's health on the injected clock (issue 41): a server found
// not answering is asked again every recheckMs of the agent's time line, so
// the phones are inventoried again within that of it answering.

/** Lets the round trip the timer started come back. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('AdbServerHealth on the injected clock', () => {
  it('asks a server that does not answer again every recheckMs of its clock, and stops once it answers', async () => {
    const time = new VirtualTime();
    let answers = false;
    let asked = 0;
    const health = new AdbServerHealth({
      adb: {
        label: 'tcp:127.0.0.1:5037',
        version: () => {
          asked++;
          return answers ? Promise.resolve(41) : Promise.reject(new Error('did not answer within 3000 ms'));
        },
      },
      clock: time.clock(),
      logger: captureLogger().logger,
      recheckMs: 2_000,
    });
    let up = 0;
    health.on('up', () => up++);
    expect(await health.check()).toBe(false);
    expect(health.down).toBe(true);
    time.advance(1_999);
    await settle();
    expect(asked).toBe(1);
    time.advance(1);
    await settle();
    expect(asked).toBe(2);
    for (let i = 0; i < 3; i++) {
      time.advance(2_000);
      await settle();
    }
    expect(asked).toBe(5);
    // It answers: at the next recheck it is up, and nothing asks it again.
    answers = true;
    time.advance(2_000);
    await settle();
    expect([asked, up, health.down]).toEqual([6, 1, false]);
    time.advance(60_000);
    await settle();
    expect(asked).toBe(6);
    expect(time.pending).toBe(0);
  });

  it("blames itself for an inventory its connections' end cut, even when the round trip after a quick restart answers", async () => {
    const time = new VirtualTime();
    const during: { ask?: () => void } = {};
    const health = new AdbServerHealth({
      adb: {
        label: 'tcp:127.0.0.1:5037',
        version: () => {
          during.ask?.();
          return Promise.resolve(41);
        },
      },
      clock: time.clock(),
      logger: captureLogger().logger,
    });
    // An inventory started at 1 s, the server restarted at 2 s (the tracker's end heard), the failure came at 3 s.
    time.advance(1_000);
    const started = time.clock().monotonic();
    time.advance(1_000);
    health.cut();
    time.advance(1_000);
    expect(await health.blame(started)).toBe(true);
    // One that started after the restart, failing on its own: the phone's.
    expect(await health.blame(time.clock().monotonic())).toBe(false);
    // The tracker's end heard while the round trip runs.
    const later = time.clock().monotonic();
    during.ask = () => health.cut();
    expect(await health.blame(later)).toBe(true);
    expect(health.down).toBe(false);
  });

  it('stopped, it asks nothing more', async () => {
    const time = new VirtualTime();
    let asked = 0;
    const health = new AdbServerHealth({
      adb: { label: 'tcp:127.0.0.1:5037', version: () => (asked++, Promise.reject(new Error('no answer'))) },
      clock: time.clock(),
      logger: captureLogger().logger,
      recheckMs: 2_000,
    });
    await health.check();
    health.stop();
    time.advance(10_000);
    await settle();
    expect(asked).toBe(1);
  });
});

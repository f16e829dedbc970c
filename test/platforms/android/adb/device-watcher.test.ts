import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AdbDevice, Tracker } from '../../../../src/platforms/android/adb/client.js';
import { DeviceWatcher } from '../../../../src/platforms/android/adb/device-watcher.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { VirtualTime } from '../../../support/virtual-time.js';

// The watcher's timing on the injected clock (issue 41): its reconciliation,
// its polling and its reconnects run on the timers it is handed, so virtual
// time drives them and real time does not. Against the real adb server:
// device-watcher.e2e.test.ts and device-watcher-polling.e2e.test.ts.

/** An adb server that lists `devices` and answers tracking as `track` says; counts what it is asked. */
function fakeAdb(track: () => Promise<Tracker>) {
  const asked = { lists: 0, tracks: 0 };
  const devices: AdbDevice[] = [{ serial: 'S1', state: 'device' }];
  const adb = {
    label: 'tcp:127.0.0.1:5037',
    listDevices: () => {
      asked.lists++;
      return Promise.resolve([...devices]);
    },
    track: () => {
      asked.tracks++;
      return track();
    },
  };
  return { adb, asked, devices };
}

function tracker(): Tracker {
  return Object.assign(new EventEmitter(), { end: () => undefined });
}

/** Lets the promises the timers started run (a listing answered, a refusal caught). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function refusal(): Error {
  return Object.assign(new Error('unknown host service'), { name: 'FailError' });
}

describe('DeviceWatcher on the injected clock', () => {
  it('reconciles the device list every reconcileMs of the clock it is handed, and not before', async () => {
    const time = new VirtualTime();
    const { adb, asked, devices } = fakeAdb(() => Promise.resolve(tracker()));
    const watcher = new DeviceWatcher(adb, { reconcileMs: 10_000, logger: silentLogger(), clock: time.clock() });
    const changes: unknown[] = [];
    watcher.on('change', (c: unknown[]) => changes.push(...c));
    await watcher.start();
    expect(asked.lists).toBe(1);
    time.advance(9_999);
    await settle();
    expect(asked.lists).toBe(1);
    time.advance(1);
    await settle();
    expect(asked.lists).toBe(2);
    // A change the tracker missed shows at the next reconciliation.
    devices.push({ serial: 'S2', state: 'device' });
    time.advance(30_000);
    await settle();
    expect(asked.lists).toBe(5);
    expect(changes).toEqual([
      { serial: 'S1', from: undefined, to: 'device' },
      { serial: 'S2', from: undefined, to: 'device' },
    ]);
    watcher.stop();
    time.advance(60_000);
    expect(asked.lists).toBe(5);
    expect(time.pending).toBe(0);
  });

  it('polls every pollMs while the server refuses tracking, and asks for tracking again every retryTrackingMs', async () => {
    const time = new VirtualTime();
    let refuse = true;
    const { adb, asked } = fakeAdb(() => (refuse ? Promise.reject(refusal()) : Promise.resolve(tracker())));
    const watcher = new DeviceWatcher(adb, { reconcileMs: 60_000, pollMs: 2_000, retryTrackingMs: 30_000, logger: silentLogger(), clock: time.clock() });
    await watcher.start();
    await settle();
    expect(watcher.polling).toBe(true);
    expect(asked).toEqual({ lists: 1, tracks: 1 });
    time.advance(10_000);
    await settle();
    expect(asked).toEqual({ lists: 6, tracks: 1 });
    // Tracking allowed again: the next ask, at retryTrackingMs, tracks and polling stops.
    refuse = false;
    time.advance(20_000);
    await settle();
    expect(asked.tracks).toBe(2);
    expect(watcher.polling).toBe(false);
    const lists = asked.lists;
    time.advance(10_000);
    await settle();
    expect(asked.lists).toBe(lists);
    watcher.stop();
  });

  it("dates the end of its tracker's connection (an adb restart) on the clock it is handed, and keeps the date once it is back", async () => {
    const time = new VirtualTime();
    const trackers: Tracker[] = [];
    const { adb } = fakeAdb(() => {
      trackers.push(tracker());
      return Promise.resolve(trackers.at(-1)!);
    });
    const watcher = new DeviceWatcher(adb, { reconcileMs: 60_000, reconnectMinMs: 100, reconnectMaxMs: 100, logger: silentLogger(), clock: time.clock() });
    await watcher.start();
    expect(watcher.droppedAt).toBeUndefined();
    time.advance(5_000);
    const at = time.clock().monotonic();
    trackers[0]!.emit('end');
    expect(watcher.droppedAt).toBe(at);
    time.advance(100);
    await settle();
    expect(trackers).toHaveLength(2);
    expect(watcher.alive).toBe(true);
    expect(watcher.droppedAt).toBe(at);
    watcher.stop();
  });

  it('reconnects a tracker that could not connect after the wait, on the clock it is handed', async () => {
    const time = new VirtualTime();
    const { adb, asked } = fakeAdb(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5037')));
    const watcher = new DeviceWatcher(adb, { reconcileMs: 60_000, reconnectMinMs: 1_000, reconnectMaxMs: 1_000, logger: silentLogger(), clock: time.clock() });
    await watcher.start();
    expect(asked.tracks).toBe(1);
    // Between half and all of the wait (jitter), never before half of it.
    time.advance(499);
    await settle();
    expect(asked.tracks).toBe(1);
    time.advance(501);
    await settle();
    expect(asked.tracks).toBe(2);
    watcher.stop();
  });
});

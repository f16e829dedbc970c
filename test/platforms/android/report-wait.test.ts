import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { AdbClient } from '../../../src/platforms/android/adb/client.js';
import type { DeviceProber } from '../../../src/platforms/android/inventory/probe.js';
import { AndroidSource } from '../../../src/platforms/android/source.js';
import { VirtualTime } from '../../support/virtual-time.js';

// The report path holds no real timer (issue 41): how long a report waits
// for a phone that does not answer is measured on the injected clock, so a
// test (and the fleet simulation) moves it with virtual time.

const never = () => new Promise<DeviceInfo>(() => undefined);
const prober = { counters: { shellSessions: 0, bytesRead: 0 }, invalidateSlow: () => undefined, madeProgress: () => true, wasCut: () => false, probe: never };

function source(time: VirtualTime) {
  const registry = new DeviceRegistry();
  const s = new AndroidSource({
    adb: {} as AdbClient,
    prober: prober as unknown as DeviceProber,
    registry,
    logger: silentLogger(),
    clock: time.clock(),
    concurrency: 4,
    reportWait: { idleMs: 3_000, maxMs: 21_000 },
    reconcileMs: 60_000,
  });
  registry.sync('android', new Map([['HUNG01', 'device']]));
  return s;
}

/** Lets the promise callbacks that are due run, without moving time. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AndroidSource: the report wait on the injected clock', () => {
  it('ends idleMs of virtual time after the last answer, and not before', async () => {
    const time = new VirtualTime();
    let done = false;
    void source(time)
      .collect({ refresh: 'all' })
      .then(() => (done = true));
    await drain();
    time.advance(2_999);
    await drain();
    expect(done).toBe(false);
    time.advance(1);
    await drain();
    expect(done).toBe(true);
  });
});

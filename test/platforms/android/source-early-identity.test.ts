import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { AdbClient } from '../../../src/platforms/android/adb/client.js';
import type { DeviceProber, OnIdentity } from '../../../src/platforms/android/inventory/probe.js';
import { AndroidSource } from '../../../src/platforms/android/source.js';
import { systemClock, type Clock, type Timers } from '../../../src/util/clock.js';
import { androidPhone, carriedOf } from '../../support/devices.js';

// Issue 42: a phone whose first inventory runs long (a slow phone's framework
// commands take the whole deadline) gave its property dump at once. The
// report says who it is from that dump while the inventory runs: a network
// phone is no longer left out, a USB phone no longer goes without its model.

const identity = (serial: string): DeviceInfo => androidPhone('FA69P0301911', { modelName: 'Pixel', platformVersion: '10', serialNumber: serial });

/** A prober whose inventories are `probe`'s. */
function proberOf(probe: (serial: string, onIdentity?: OnIdentity) => Promise<DeviceInfo>): DeviceProber {
  const fake = {
    counters: { shellSessions: 0, bytesRead: 0 },
    invalidateSlow: () => undefined,
    madeProgress: () => true,
    wasCut: () => false,
    probe: (serial: string, _state: string, _connection: number | undefined, onIdentity?: OnIdentity) => probe(serial, onIdentity),
  };
  return fake as unknown as DeviceProber;
}

/** A prober whose inventory says who the phone is at once and ends when the test says. */
function slowProber() {
  const ends: Array<(info: DeviceInfo) => void> = [];
  const fake = proberOf(
    (serial, onIdentity) =>
      new Promise<DeviceInfo>((resolve) => {
        onIdentity?.(identity(serial));
        ends.push(resolve);
      }),
  );
  return { fake, ends };
}

function source(fake: DeviceProber, clock: Clock & Timers = systemClock) {
  const registry = new DeviceRegistry();
  const s = new AndroidSource({
    adb: {} as AdbClient,
    prober: fake,
    registry,
    logger: silentLogger(),
    clock,
    concurrency: 4,
    reportWait: { idleMs: 20, maxMs: 60_000 },
    reconcileMs: 60_000,
  });
  const collect = async (devices: Map<string, string>) => {
    registry.sync('android', devices);
    return (await s.collect({ refresh: 'all' })).map((d) => d.info);
  };
  return { s, collect, registry };
}

describe('AndroidSource: a phone whose first inventory has not ended', () => {
  for (const serial of ['10.0.0.7:5555', 'FA69P0301911']) {
    it(`${serial.includes(':') ? 'over the network' : 'on USB'}: reported from the first report with who its properties say it is, UNAVAILABLE, and why`, async () => {
      const { fake, ends } = slowProber();
      const { collect } = source(fake);
      const devices = new Map([[serial, 'device']]);
      for (const report of [await collect(devices), await collect(devices)]) {
        expect(report).toHaveLength(1);
        expect(report[0]).toMatchObject({ udid: 'FA69P0301911', modelName: 'Pixel', platformVersion: '10', state: 'device', status: 'UNAVAILABLE' });
        expect(report[0]!.message).toMatch(/^the inventory of the device has not finished yet; reported with what its system properties say/);
      }
      // Its inventory ends: what it read replaces the early identity.
      ends[0]!(androidPhone('FA69P0301911', { modelName: 'Pixel', battery: { percentage: '80' } }));
      await new Promise((r) => setTimeout(r, 10));
      const after = await collect(devices);
      expect(after[0]).toMatchObject({ udid: 'FA69P0301911', status: 'AVAILABLE', battery: { percentage: '80' } });
      expect(after[0]!.message).toBeUndefined();
    });
  }

  it('a network phone a report went without (its identity came late) is news', async () => {
    let tell: (() => void) | undefined;
    const fake = proberOf((serial, onIdentity) => new Promise<DeviceInfo>(() => (tell = () => onIdentity?.(identity(serial)))));
    const { s, collect } = source(fake);
    const news: string[] = [];
    s.on('news', (key) => news.push(key));
    const devices = new Map([['10.0.0.8:5555', 'device']]);
    expect(await collect(devices)).toEqual([]);
    tell!();
    expect(news).toEqual(['android/10.0.0.8:5555']);
    expect((await collect(devices))[0]).toMatchObject({ udid: 'FA69P0301911', status: 'UNAVAILABLE' });
  });
});

describe('AndroidSource: a phone whose transport dropped during its first inventory', () => {
  it('is reported back on its new connection with who its properties said it is, never with its serial alone', async () => {
    // Under load a cut shell session's transport drops (100 ms later) before the cut answer is
    // applied: no inventory of the phone ever ended, and the early identity went with the connection.
    const wall = Date.UTC(2026, 10, 26, 1, 0, 0);
    let calls = 0;
    let endFirst: ((info: DeviceInfo) => void) | undefined;
    // The first connection's inventory says who the phone is, then ends when the test says;
    // the new connection's has not reached its property dump yet.
    const fake = proberOf(
      (serial, onIdentity) =>
        new Promise<DeviceInfo>((resolve) => {
          if (++calls === 1) {
            onIdentity?.(identity(serial));
            endFirst = resolve;
          }
        }),
    );
    const { s, collect: collectListed, registry } = source(fake, { ...systemClock, wall: () => wall });
    const collect = (state: string) => collectListed(new Map([['FA69P0301911', state]]));
    expect((await collect('device'))[0]).toMatchObject({ modelName: 'Pixel', status: 'UNAVAILABLE' });
    await collect('offline');
    // The cut answer comes after the drop: it is for a connection that is gone, and is not applied.
    endFirst!({ ...androidPhone('FA69P0301911', { modelName: 'Pixel' }), message: 'the shell output ended before the inventory script did' });
    await new Promise((r) => setTimeout(r, 10));
    expect(await collect('device')).toEqual([]);
    const [owed] = s.owed();
    expect(owed).toMatchObject({ reason: { kind: 'unanswered', scope: 'android/FA69P0301911' } });
    const [carried] = carriedOf(registry, owed!);
    expect(carried).toMatchObject({ udid: 'FA69P0301911', modelName: 'Pixel', platformVersion: '10', state: 'device', status: 'UNAVAILABLE' });
    expect(carried!.message).toBe(
      'the device is back on a new adb connection and its inventory has not finished yet; reported with what its system properties said on its last connection, of 2026-11-26T01:00:00.000Z',
    );
  });
});

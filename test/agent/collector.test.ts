import { describe, expect, it } from 'vitest';
import { InventoryCollector } from '../../src/agent/collector.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import type { DeviceProber } from '../../src/platforms/android/inventory/probe.js';
import { silentLogger } from '../../src/log/logger.js';

// The collector's promises to the report: it never waits for a device longer
// than waitMs, never probes one device twice at once, and says what it knows.

const info = (udid: string, serial = udid): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  modelName: `model of ${serial}`,
});

/** A prober whose answers the test gives per serial: a value, an error, or never. */
function prober(answer: (serial: string, call: number) => Promise<DeviceInfo>) {
  const calls = new Map<string, number>();
  const fake = {
    counters: { shellSessions: 0, bytesRead: 0 },
    forget: () => undefined,
    probe: (serial: string) => {
      const n = (calls.get(serial) ?? 0) + 1;
      calls.set(serial, n);
      return answer(serial, n);
    },
  };
  return { fake: fake as unknown as DeviceProber, calls };
}

const never = () => new Promise<DeviceInfo>(() => undefined);
const logs: string[] = [];
const logger = { ...silentLogger(), warn: (_o: unknown, m?: string) => void logs.push(String(m)), info: () => undefined } as unknown as ReturnType<typeof silentLogger>;

describe('InventoryCollector', () => {
  it('reports a device still being probed with its last good inventory after waitMs, and does not probe it twice at once', async () => {
    const { fake, calls } = prober((serial, n) => (serial === 'SLOW' && n > 1 ? never() : Promise.resolve(info(serial))));
    const c = new InventoryCollector(fake, { concurrency: 4, waitMs: 100, logger });
    const devices = new Map([['SLOW', 'device'], ['FAST', 'device']]);
    await c.collect(devices);
    const t0 = Date.now();
    const second = await c.collect(devices);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(second.map((d) => d.udid)).toEqual(['FAST', 'SLOW']);
    expect(second.find((d) => d.udid === 'SLOW')).toMatchObject({ modelName: 'model of SLOW', status: 'AVAILABLE' });
    expect(second.find((d) => d.udid === 'SLOW')?.message).toBeUndefined();
    await c.collect(devices);
    expect(calls.get('SLOW')).toBe(2);
    expect(calls.get('FAST')).toBe(3);
  });

  it('marks a device whose probe failed UNAVAILABLE with its last good fields, says since when, and tells the planner', async () => {
    const outcomes: Array<[string, boolean]> = [];
    const { fake } = prober((serial, n) => (n > 1 ? Promise.reject(new Error('device W did not open an adb shell within 100 ms')) : Promise.resolve(info(serial))));
    const c = new InventoryCollector(fake, { concurrency: 4, waitMs: 1_000, logger, now: () => Date.UTC(2026, 10, 22, 8, 0, 0) });
    c.onProbe = (serial, ok) => outcomes.push([serial, ok]);
    const devices = new Map([['W', 'device']]);
    await c.collect(devices);
    const [w] = await c.collect(devices);
    expect(w).toMatchObject({ udid: 'W', modelName: 'model of W', status: 'UNAVAILABLE' });
    expect(w!.message).toMatch(/has not answered its adb shell inventory since 2026-11-22T08:00:00\.000Z \(1 tries; .*did not open an adb shell/);
    expect(outcomes).toEqual([
      ['W', true],
      ['W', false],
    ]);
    // Held by the planner: not probed, still described.
    const [held] = await c.collect(devices, { refresh: 'all', hold: new Set(['W']) });
    expect(held!.status).toBe('UNAVAILABLE');
    expect(outcomes).toHaveLength(2);
  });

  it('leaves out a network device that never said who it is, in any state, with one log line', async () => {
    logs.length = 0;
    const { fake } = prober(() => Promise.reject(new Error('closed')));
    const c = new InventoryCollector(fake, { concurrency: 4, waitMs: 1_000, logger });
    const devices = new Map([
      ['10.0.0.5:5555', 'unauthorized'],
      ['10.0.0.6:5555', 'device'],
      ['USBSERIAL1', 'unauthorized'],
    ]);
    for (let i = 0; i < 3; i++) {
      const infos = await c.collect(devices);
      expect(infos.map((d) => d.udid)).toEqual(['USBSERIAL1']);
    }
    expect(logs.filter((l) => l.includes('10.0.0.5:5555'))).toHaveLength(1);
    expect(logs.filter((l) => l.includes('before it said who it is'))).toHaveLength(1);
  });

  it('waits for every probe when asked to (a one-shot inventory)', async () => {
    const { fake } = prober((serial) => new Promise((r) => setTimeout(() => r(info(serial)), 300)));
    const c = new InventoryCollector(fake, { concurrency: 1, waitMs: 50, logger });
    const infos = await c.collect(new Map([['A', 'device'], ['B', 'device']]), { refresh: 'all', waitForAll: true });
    expect(infos.map((d) => d.modelName)).toEqual(['model of A', 'model of B']);
  });
});

import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { recordKey } from '../../../src/devices/record.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { AdbClient } from '../../../src/platforms/android/adb/client.js';
import type { DeviceProber, TierCache } from '../../../src/platforms/android/inventory/probe.js';
import { AndroidSource } from '../../../src/platforms/android/source.js';
import { registryTierStore } from '../../../src/platforms/android/inventory/tier-store.js';
import { AdbServerHealth } from '../../../src/platforms/android/adb/server-health.js';
import type { CollectRequest } from '../../../src/platforms/source.js';
import { systemClock, type Clock, type Timers } from '../../../src/util/clock.js';
import { androidPhone, carriedOf } from '../../support/devices.js';

// The Android source's promises to the report: it never waits for a device
// longer than its report wait, waits only for what the report asked for,
// never probes one device twice at once, and says what it knows.

const info = (udid: string, serial = udid): DeviceInfo => androidPhone(udid, { modelName: `model of ${serial}` });

/** A prober whose answers the test gives per serial: a value, an error, or never. */
function prober(answer: (serial: string, call: number) => Promise<DeviceInfo>) {
  const calls = new Map<string, number>();
  const fake = {
    counters: { shellSessions: 0, bytesRead: 0 },
    invalidateSlow: () => undefined,
    madeProgress: () => true,
    wasCut: () => false,
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
const logger = { ...silentLogger(), warn: (_o: unknown, m?: string) => void logs.push(String(m)), info: () => undefined } as unknown as ReturnType<
  typeof silentLogger
>;

function source(fake: DeviceProber, o: { reportWaitMs: number; concurrency?: number; clock?: Clock & Timers; server?: AdbServerHealth }) {
  const wait = { idleMs: o.reportWaitMs, maxMs: 60_000 };
  const registry = new DeviceRegistry();
  const s = new AndroidSource({
    adb: {} as AdbClient,
    prober: fake,
    registry,
    logger,
    clock: o.clock ?? systemClock,
    concurrency: o.concurrency ?? 4,
    reportWait: wait,
    reconcileMs: 60_000,
    server: o.server,
  });
  const collect = async (devices: Map<string, string>, request: CollectRequest = { refresh: 'all' }) => {
    registry.sync('android', devices);
    return (await s.collect(request)).map((d) => d.info);
  };
  return { s, registry, collect };
}

describe('AndroidSource', () => {
  it('reports a device still being probed with its last good inventory after the report wait, and does not probe it twice at once', async () => {
    const { fake, calls } = prober((serial, n) => (serial === 'SLOW' && n > 1 ? never() : Promise.resolve(info(serial))));
    const { collect } = source(fake, { reportWaitMs: 100 });
    const devices = new Map([
      ['SLOW', 'device'],
      ['FAST', 'device'],
    ]);
    await collect(devices);
    const t0 = Date.now();
    const second = await collect(devices);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(second.map((d) => d.udid)).toEqual(['FAST', 'SLOW']);
    expect(second.find((d) => d.udid === 'SLOW')).toMatchObject({ modelName: 'model of SLOW', status: 'AVAILABLE' });
    expect(second.find((d) => d.udid === 'SLOW')?.message).toBeUndefined();
    await collect(devices);
    expect(calls.get('SLOW')).toBe(2);
    expect(calls.get('FAST')).toBe(3);
  });

  it('waits only for the devices the report asked for: a slow inventory another report started holds up no one', async () => {
    const { fake } = prober((serial, n) => (serial === 'SLOW' && n > 1 ? never() : Promise.resolve(info(serial))));
    const { collect } = source(fake, { reportWaitMs: 60_000 });
    const devices = new Map([
      ['SLOW', 'device'],
      ['FAST', 'device'],
    ]);
    await collect(devices);
    // A full report starts a second inventory of SLOW that never ends; it waits the whole report wait only
    // because it asked for SLOW. A report that asks only for a newly plugged phone must not wait for it.
    void collect(devices);
    devices.set('NEW', 'device');
    const t0 = Date.now();
    const infos = await collect(devices, { refresh: new Set(['android/NEW']) });
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(infos.find((d) => d.udid === 'NEW')).toMatchObject({ status: 'AVAILABLE', modelName: 'model of NEW' });
  });

  it('says when an inventory the report stopped waiting for brings news (a first inventory), and not for a routine refresh', async () => {
    let release: (() => void) | undefined;
    const { fake } = prober((serial, n) =>
      n === 1 || serial === 'OLD' ? new Promise((r) => (release = () => r(info(serial)))) : Promise.resolve(info(serial)),
    );
    const { s, collect } = source(fake, { reportWaitMs: 50 });
    const news: string[] = [];
    s.on('news', (key) => news.push(key));
    const first = await collect(new Map([['NEWCOMER', 'device']]));
    expect(first[0]).toMatchObject({ status: 'UNAVAILABLE', message: 'the inventory of the device has not finished yet' });
    release!();
    await new Promise((r) => setTimeout(r, 10));
    expect(news).toEqual(['android/NEWCOMER']);
    // A device already shown ready that answers late is no news: the next report carries it.
    const { s: s2, collect: collect2 } = source(
      prober((_serial, n) => (n === 1 ? Promise.resolve(info('OLD')) : new Promise((r) => setTimeout(() => r(info('OLD')), 100)))).fake,
      { reportWaitMs: 20 },
    );
    const news2: string[] = [];
    s2.on('news', (key) => news2.push(key));
    await collect2(new Map([['OLD', 'device']]));
    await collect2(new Map([['OLD', 'device']]));
    await new Promise((r) => setTimeout(r, 150));
    expect(news2).toEqual([]);
  });

  it('says when an inventory the report stopped waiting for fails on a device shown ready: the report went with its last good inventory', async () => {
    // Its second inventory fails after the report moved on (a wedged shell past its deadline): the report that says the
    // phone is not answering goes now, not with its retry 10 s and a report wait later, while the agent's own clock
    // already counts it out.
    const { s, collect, registry } = source(
      prober((_serial, n) =>
        n === 1 ? Promise.resolve(info('WEDGED')) : new Promise((_, no) => setTimeout(() => no(new Error('did not open an adb shell')), 50)),
      ).fake,
      { reportWaitMs: 10 },
    );
    const news: string[] = [];
    s.on('news', (key) => news.push(key));
    await collect(new Map([['WEDGED', 'device']]));
    const second = await collect(new Map([['WEDGED', 'device']]));
    expect(second[0]).toMatchObject({ status: 'AVAILABLE' });
    expect(news).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(registry.get('android/WEDGED')?.failures).toBe(1);
    expect(news).toEqual(['android/WEDGED']);
  });

  it('blames the adb server, not the phone, when the server does not answer its own round trip: no failure counted, last state kept, the host says it', async () => {
    const { fake } = prober((serial, n) =>
      n > 1 ? Promise.reject(new Error('device W did not open an adb shell within 100 ms')) : Promise.resolve(info(serial)),
    );
    let serverAnswers = true;
    const server = new AdbServerHealth({
      adb: { label: 'tcp:127.0.0.1:5037', version: () => (serverAnswers ? Promise.resolve(41) : Promise.reject(new Error('did not answer within 3000 ms'))) },
      clock: systemClock,
      logger: silentLogger(),
      recheckMs: 20,
    });
    const { s, collect, registry } = source(fake, { reportWaitMs: 1_000, server });
    const devices = new Map([['W', 'device']]);
    await collect(devices);
    serverAnswers = false;
    await collect(devices);
    const [w] = await collect(devices);
    expect(registry.find('android', 'W')?.failures).toBe(0);
    expect(w).toMatchObject({ udid: 'W', modelName: 'model of W', status: 'AVAILABLE' });
    expect(w!.message).toMatch(/^the adb server on this host has not answered since .*nothing is known to be wrong with the device itself/);
    // (Tracking is not started here, so it says it is down too.)
    expect(s.problems()).toContainEqual(
      expect.stringMatching(/^adb server not answering: the server at tcp:127\.0\.0\.1:5037 has not answered its own round trip \(host:version\)/),
    );
    expect(s.metrics().find((m) => m.name === 'device_agent_adb_server_up')?.samples).toEqual([{ value: 0 }]);
    // It answers again: the host's problem goes, and the phone is asked again at once ('resumed').
    const resumed = new Promise<void>((r) => s.once('resumed', () => r()));
    serverAnswers = true;
    await resumed;
    expect(s.problems().filter((p) => p.includes('adb server'))).toEqual([]);
    s.stop();
  });

  it('marks a device whose probe failed UNAVAILABLE with its last good fields, says since when, and counts the failure in its record', async () => {
    const { fake } = prober((serial, n) =>
      n > 1 ? Promise.reject(new Error('device W did not open an adb shell within 100 ms')) : Promise.resolve(info(serial)),
    );
    const clock = { ...systemClock, wall: () => Date.UTC(2026, 10, 22, 8, 0, 0) };
    const { collect, registry } = source(fake, { reportWaitMs: 1_000, clock });
    const devices = new Map([['W', 'device']]);
    await collect(devices);
    expect(registry.find('android', 'W')?.failures).toBe(0);
    const [w] = await collect(devices);
    expect(w).toMatchObject({ udid: 'W', modelName: 'model of W', status: 'UNAVAILABLE' });
    expect(w!.message).toMatch(/has not answered its adb shell inventory since 2026-11-22T08:00:00\.000Z \(1 tries; .*did not open an adb shell/);
    expect(registry.find('android', 'W')?.failures).toBe(1);
    // Held by the planner: not probed, still described.
    const [held] = await collect(devices, { refresh: 'all', hold: new Set(['android/W']) });
    expect(held!.status).toBe('UNAVAILABLE');
    expect(registry.find('android', 'W')?.failures).toBe(1);
  });

  // CI on a loaded host: a slow inventory (answered, not all in time: AVAILABLE with a message saying so), then the phone
  // wedged; its failure was hidden behind that message, and the report said AVAILABLE while the agent counted failures.
  it('marks a device whose last inventory was cut short (AVAILABLE, saying so) UNAVAILABLE once a probe fails outright, with that failure', async () => {
    const slow = 'part of the inventory did not answer in time';
    const { fake } = prober((serial, n) =>
      n > 1 ? Promise.reject(new Error('device W did not open an adb shell within 100 ms')) : Promise.resolve({ ...info(serial), message: slow }),
    );
    const { collect } = source(fake, { reportWaitMs: 1_000 });
    const devices = new Map([['W', 'device']]);
    expect((await collect(devices))[0]).toMatchObject({ status: 'AVAILABLE', message: slow });
    const [w] = await collect(devices);
    expect(w).toMatchObject({ udid: 'W', modelName: 'model of W', status: 'UNAVAILABLE' });
    expect(w!.message).toMatch(/^the device has not answered its adb shell inventory since .*did not open an adb shell within 100 ms/);
    expect(w!.message).not.toContain(slow);
  });

  it("marks a failure whose connection closed under the inventory as a cut (the prober's word), and no other", async () => {
    let cut = false;
    const { fake } = prober((serial, n) => (n > 1 ? Promise.reject(new Error('the adb connection failed')) : Promise.resolve(info(serial))));
    Object.assign(fake, { wasCut: () => cut });
    const { collect, registry } = source(fake, { reportWaitMs: 1_000 });
    const devices = new Map([['W', 'device']]);
    await collect(devices);
    await collect(devices);
    expect(registry.find('android', 'W')?.failure?.cut).toBeUndefined();
    cut = true;
    await collect(devices);
    expect(registry.find('android', 'W')?.failure?.cut).toBe(true);
  });

  it('keeps the last known fields of a phone whose inventory was cut (framework commands past the deadline), with the cut message', async () => {
    // Issue 36: a slow phone's cut inventory replaced its last reading whole, so it went out without its model.
    const cut: DeviceInfo = { ...info('SLOW'), modelName: undefined, message: 'the inventory did not finish within 8000 ms: 3 of 9 sections arrived' };
    delete cut.modelName;
    const { fake } = prober((serial, n) => Promise.resolve(n === 1 ? { ...info(serial), brandName: 'google' } : cut));
    const { collect, registry } = source(fake, { reportWaitMs: 1_000 });
    const devices = new Map([['SLOW', 'device']]);
    await collect(devices);
    const [second] = await collect(devices);
    expect(second).toMatchObject({ udid: 'SLOW', modelName: 'model of SLOW', brandName: 'google', message: cut.message });
    expect(registry.find('android', 'SLOW')?.failures).toBe(1);
    // Every later report too, while the inventories keep being cut.
    const [third] = await collect(devices);
    expect(third).toMatchObject({ udid: 'SLOW', modelName: 'model of SLOW', message: cut.message });
  });

  it('reports a phone back on a new connection with its last inventory until the new one answers, never as a bare record', async () => {
    // A transport that drops and comes back (offline, then device) starts a new connection with nothing read:
    // a report taken then sent the phone without its model, which a cloud requiring it refuses.
    const wall = Date.UTC(2026, 10, 24, 9, 0, 0);
    const { fake } = prober((serial, n) => (n === 1 ? Promise.resolve({ ...info(serial), batteryLevel: 80 } as DeviceInfo) : never()));
    const { s, collect, registry } = source(fake, { reportWaitMs: 50, clock: { ...systemClock, wall: () => wall } });
    const [first] = await collect(new Map([['BACK', 'device']]));
    expect(first).toMatchObject({ modelName: 'model of BACK', status: 'AVAILABLE' });
    expect(s.owed()).toEqual([]);
    await collect(new Map([['BACK', 'offline']]));
    // Not in the source's list: owed in the presence ledger (issue 41), which the report carries, until it answers.
    expect(await collect(new Map([['BACK', 'device']]))).toEqual([]);
    const [owed] = s.owed();
    expect(owed).toMatchObject({ reason: { kind: 'unanswered', scope: 'android/BACK' }, bound: { while: expect.any(String) as string } });
    const [back] = carriedOf(registry, owed!);
    expect(back).toMatchObject({ udid: 'BACK', state: 'device', modelName: 'model of BACK', batteryLevel: 80, status: 'UNAVAILABLE' });
    expect(back!.message).toBe(
      'the device is back on a new adb connection and its inventory has not finished yet; reported with its last inventory, of 2026-11-24T09:00:00.000Z',
    );
    // A different phone at the same serial is not given the other's fields: its udid is not known on this connection.
    const { collect: collect2 } = source(prober(() => never()).fake, { reportWaitMs: 50 });
    const [fresh] = await collect2(new Map([['NEVER', 'device']]));
    expect(fresh).toMatchObject({ udid: 'NEVER', message: 'the inventory of the device has not finished yet' });
    expect(fresh!.modelName).toBeUndefined();
  });

  it('leaves out a network device that never said who it is, in any state, with one log line', async () => {
    logs.length = 0;
    const { fake } = prober(() => Promise.reject(new Error('closed')));
    const { collect } = source(fake, { reportWaitMs: 1_000 });
    const devices = new Map([
      ['10.0.0.5:5555', 'unauthorized'],
      ['10.0.0.6:5555', 'device'],
      ['USBSERIAL1', 'unauthorized'],
    ]);
    for (let i = 0; i < 3; i++) {
      const infos = await collect(devices);
      expect(infos.map((d) => d.udid)).toEqual(['USBSERIAL1']);
    }
    expect(logs.filter((l) => l.includes('10.0.0.5:5555'))).toHaveLength(1);
    expect(logs.filter((l) => l.includes('before it said who it is'))).toHaveLength(1);
  });

  it('waits for every probe when asked to (a one-shot inventory)', async () => {
    const { fake } = prober((serial) => new Promise((r) => setTimeout(() => r(info(serial)), 300)));
    const { collect } = source(fake, { reportWaitMs: 50, concurrency: 1 });
    const infos = await collect(
      new Map([
        ['A', 'device'],
        ['B', 'device'],
      ]),
      { refresh: 'all', waitForAll: true },
    );
    expect(infos.map((d) => d.modelName)).toEqual(['model of A', 'model of B']);
  });
});

describe('registryTierStore', () => {
  it('lets an inventory read and write only the tier cache of the connection it started on, so one that outlived a replug cannot seed the new connection', () => {
    const registry = new DeviceRegistry();
    const store = registryTierStore(registry);
    const key = recordKey('android', 'A');
    registry.sync('android', new Map([['A', 'device']]));
    const first = registry.readings.asked(key, 0);
    const old = { tiers: 'read before the replug' } as unknown as TierCache;
    store.set('A', old, first);
    expect(store.get('A', first)).toBe(old);
    // Unplugged and plugged again while that inventory still ran: a new connection.
    registry.sync('android', new Map([['A', 'offline']]));
    registry.sync('android', new Map([['A', 'device']]));
    const second = registry.readings.asked(key, 1);
    expect(second).not.toBe(first);
    store.set('A', old, first);
    expect(store.get('A', second)).toBeUndefined();
    expect(store.get('A', first)).toBeUndefined();
    const fresh = { tiers: 'read on the new connection' } as unknown as TierCache;
    store.set('A', fresh, second);
    store.delete('A', first);
    expect(store.get('A', second)).toBe(fresh);
  });

  it('gives the prober the connection its inventory started on', async () => {
    const seen: Array<number | undefined> = [];
    const { fake } = prober((serial) => Promise.resolve(info(serial)));
    (fake as unknown as { probe: (s: string, st: string, c?: number) => Promise<DeviceInfo> }).probe = (s, _st, c) => {
      seen.push(c);
      return Promise.resolve(info(s));
    };
    const { collect, registry } = source(fake, { reportWaitMs: 1_000 });
    await collect(new Map([['A', 'device']]));
    expect(seen).toEqual([registry.get(recordKey('android', 'A'))!.connection]);
  });
});

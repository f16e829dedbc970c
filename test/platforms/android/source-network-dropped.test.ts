import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { AdbClient } from '../../../src/platforms/android/adb/client.js';
import type { DeviceProber } from '../../../src/platforms/android/inventory/probe.js';
import { REMEMBER_MS } from '../../../src/platforms/android/remembered.js';
import { AndroidSource } from '../../../src/platforms/android/source.js';
import { systemClock } from '../../../src/util/clock.js';
import { TRANSPORT_CUT } from '../../../src/devices/transport-cut.js';
import type { PresenceLedger } from '../../../src/devices/presence.js';
import { androidPhone, carriedOf } from '../../support/devices.js';

// A network phone dropped or kicked off its address (remembered.ts) is owed
// in the presence ledger by the Android source (issue 41): not in its list,
// but in what its collect owes, with reason network-dropped, its address as
// scope, and the hour remembered.ts keeps it as bound. execute.ts writes it.

const ADDRESS = '10.0.0.5:5555';
const TUNNEL = { host: '10.0.0.5', port: '5555' };
const net = (): DeviceInfo => ({ ...androidPhone('NET00001', { modelName: 'Pixel 8 Pro' }), adbTunnelInfo: { ...TUNNEL } });

/** A source whose prober answers each serial as `answer` says, on a monotonic clock the test moves. */
function bed(answer: (serial: string, call: number) => Promise<DeviceInfo>) {
  const registry = new DeviceRegistry();
  const clock = { ...systemClock, now: 5_000, monotonic: () => clock.now, wall: () => Date.UTC(2026, 10, 25, 9, 0, 0) };
  const calls = new Map<string, number>();
  const prober = {
    counters: { shellSessions: 0, bytesRead: 0 },
    invalidateSlow: () => undefined,
    madeProgress: () => true,
    wasCut: () => false,
    probe: (serial: string) => {
      calls.set(serial, (calls.get(serial) ?? 0) + 1);
      return answer(serial, calls.get(serial)!);
    },
  } as unknown as DeviceProber;
  const source = new AndroidSource({
    adb: {} as AdbClient,
    prober,
    registry,
    logger: silentLogger(),
    clock,
    concurrency: 4,
    reportWait: { idleMs: 50, maxMs: 60_000 },
    reconcileMs: 60_000,
    networkDevices: [ADDRESS],
  });
  const collect = async (listing: Record<string, string>) => {
    registry.sync('android', new Map(Object.entries(listing)));
    return (await source.collect({ refresh: 'all' })).map((d) => d.info);
  };
  return { source, clock, collect, registry };
}

const never = () => new Promise<DeviceInfo>(() => undefined);

describe('AndroidSource: a dropped network phone is owed in the presence ledger (issue 41)', () => {
  it('owes it, not lists it: its last inventory, UNAVAILABLE, what adb says of the address, until the hour remembered.ts keeps it', async () => {
    const { source, clock, collect, registry } = bed((serial, n) => (serial === ADDRESS && n === 1 ? Promise.resolve(net()) : never()));
    expect(source.owes).toEqual(['network-dropped', 'unanswered']);
    const [first] = await collect({ [ADDRESS]: 'device' });
    expect(first).toMatchObject({ udid: 'NET00001', status: 'AVAILABLE' });
    expect(source.owed()).toEqual([]);
    const answeredAt = clock.now;

    // Its link drops: adb lists the address no more (the agent keeps connecting it: networkDevices).
    clock.now += 1_000;
    expect(await collect({})).toEqual([]);
    const [off] = source.owed();
    expect(off!.reason).toEqual({ kind: 'network-dropped', scope: `android/${ADDRESS}` });
    expect(off!.bound).toEqual({ until: answeredAt + REMEMBER_MS });
    expect(off!.devices).toHaveLength(1);
    const [offCarried] = carriedOf(registry, off!);
    expect(offCarried).toMatchObject({ udid: 'NET00001', modelName: 'Pixel 8 Pro', state: 'offline', status: 'UNAVAILABLE', adbTunnelInfo: TUNNEL });
    expect(offCarried!.message).toMatch(
      /^reported with its last inventory, of .*: its network link \(adb over TCP to 10\.0\.0\.5:5555\) dropped; adb does not list the address now; the agent keeps connecting it\./,
    );

    // Back on adb, not identified yet (its inventory hangs): still owed, with what adb says now.
    clock.now += 1_000;
    expect(await collect({ [ADDRESS]: 'device' })).toEqual([]);
    const [back] = source.owed();
    expect(back!.bound).toEqual({ until: answeredAt + REMEMBER_MS });
    const [backCarried] = carriedOf(registry, back!);
    expect(backCarried).toMatchObject({ udid: 'NET00001', modelName: 'Pixel 8 Pro', state: 'device', status: 'UNAVAILABLE' });
    expect(backCarried!.message).toMatch(/adb lists the address as device again; it has not said who it is since/);

    // The hour without an answer is over: forgotten, owed no more, so the report sends it UNPLUGGED.
    clock.now = answeredAt + REMEMBER_MS;
    expect(await collect({ [ADDRESS]: 'device' })).toEqual([]);
    expect(source.owed()).toEqual([]);
  });

  it('owes nothing while its twin on USB is listed: the twin is reported, with the dropped address’s tunnel', async () => {
    const { source, collect } = bed((serial, n) =>
      serial === ADDRESS ? (n === 1 ? Promise.resolve(net()) : never()) : Promise.resolve(androidPhone('NET00001', { modelName: 'Pixel 8 Pro' })),
    );
    await collect({ [ADDRESS]: 'device' });
    const listed = await collect({ NET00001: 'device' });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ udid: 'NET00001', status: 'AVAILABLE', adbTunnelInfo: TUNNEL });
    expect(source.owed()).toEqual([]);
  });

  it('blames the agent’s own kick, as recovery publishes it (src/devices/transport-cut.ts), when it came after the phone’s last answer, and its link otherwise', async () => {
    const { source, clock, collect, registry } = bed((serial, n) => (serial === ADDRESS && n === 1 ? Promise.resolve(net()) : never()));
    await collect({ [ADDRESS]: 'device' });
    const answeredAt = clock.now;
    // A kick from before its last answer says nothing of this drop.
    registry.facet(TRANSPORT_CUT).set(`android/${ADDRESS}`, { at: answeredAt - 1, what: 'recovery kicked its adb transport' });
    clock.now += 1_000;
    await collect({});
    expect(carriedOf(registry, source.owed()[0]!)[0]!.message).toMatch(/: its network link \(adb over TCP to 10\.0\.0\.5:5555\) dropped;/);
    registry.facet(TRANSPORT_CUT).set(`android/${ADDRESS}`, { at: answeredAt + 500, what: 'recovery kicked its adb transport' });
    await collect({});
    expect(carriedOf(registry, source.owed()[0]!)[0]!.message).toMatch(
      /: recovery kicked its adb transport at 2026-11-25T08:59:59\.500Z \(adb -s 10\.0\.0\.5:5555 reconnect\), which drops its network link/,
    );
  });

  it('leaves a dropped phone another writer owes for a reason nearer it (its port switched off on purpose) to that writer, and keeps remembering it', async () => {
    const { source, clock, collect, registry } = bed((serial, n) => (serial === ADDRESS && n === 1 ? Promise.resolve(net()) : never()));
    await collect({ [ADDRESS]: 'device' });
    const ledger: PresenceLedger = registry.presence;
    ledger.owe({ kind: 'charge-paused', scope: `android/${ADDRESS}` }, [{ udid: net().udid }], { while: 'paused' });
    clock.now += 1_000;
    await collect({});
    expect(source.owed()).toEqual([]);
    // The pause over, it is the source's again: still remembered, not forgotten meanwhile.
    ledger.end({ kind: 'charge-paused', scope: `android/${ADDRESS}` });
    await collect({});
    expect(source.owed()[0]!.reason).toEqual({ kind: 'network-dropped', scope: `android/${ADDRESS}` });
  });
});

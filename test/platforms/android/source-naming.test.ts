import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { recordKey } from '../../../src/devices/record.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { AdbClient } from '../../../src/platforms/android/adb/client.js';
import type { DeviceProber, OnIdentity } from '../../../src/platforms/android/inventory/probe.js';
import { REMEMBERED } from '../../../src/platforms/android/remembered.js';
import { AndroidSource } from '../../../src/platforms/android/source.js';
import { systemClock } from '../../../src/util/clock.js';
import { androidPhone } from '../../support/devices.js';

// Whether the source lists an address that may be any phone the cloud holds (`naming`): while it does, the report
// calls no phone gone (src/report/reporter.ts). The hold must end on every way the address's first inventory ends, and
// nothing but a ready network phone may start it: the states are every one adb's `adb devices` prints
// (adb's transport.cpp, to_string(ConnectionState)), "no permissions" with its advice included.

const NET = '10.0.0.7:5555';
const ADB_STATES = ['offline', 'bootloader', 'host', 'recovery', 'rescue', 'sideload', 'unauthorized', 'authorizing', 'connecting', 'unknown', 'detached'];
const NO_PERMISSIONS = 'no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]';

function source(probe: (serial: string, onIdentity?: OnIdentity) => Promise<DeviceInfo>) {
  const prober = {
    counters: { shellSessions: 0, bytesRead: 0 },
    invalidateSlow: () => undefined,
    madeProgress: () => false,
    wasCut: () => false,
    probe: (serial: string, _state: string, _connection: number | undefined, onIdentity?: OnIdentity) => probe(serial, onIdentity),
  } as unknown as DeviceProber;
  const registry = new DeviceRegistry();
  const s = new AndroidSource({
    adb: {} as AdbClient,
    prober,
    registry,
    logger: silentLogger(),
    clock: systemClock,
    concurrency: 4,
    reportWait: { idleMs: 20, maxMs: 200 },
    reconcileMs: 60_000,
  });
  const list = (devices: Array<[string, string]>) => registry.sync('android', new Map(devices));
  const collect = async () => {
    await s.collect({ refresh: 'all' });
    await new Promise((r) => setTimeout(r, 30));
  };
  return { s, registry, list, collect };
}

const never = () => new Promise<DeviceInfo>(() => undefined);

describe('AndroidSource.naming', () => {
  it('holds only for a ready network phone whose first inventory has not ended: no other state adb prints, no USB phone', () => {
    const { s, list } = source(never);
    list([...ADB_STATES, NO_PERMISSIONS].map((state, i): [string, string] => [`10.0.0.${i + 10}:5555`, state]));
    expect(s.naming).toBe(false);
    list([['FA69P0301911', 'device']]);
    expect(s.naming).toBe(false);
    list([[NET, 'device']]);
    expect(s.naming).toBe(true);
  });

  it('ends when the phone says who it is, first with its properties', async () => {
    const { s, list, collect } = source((serial, onIdentity) => {
      onIdentity?.(androidPhone('FA69P0301911', { serialNumber: serial }));
      return never();
    });
    list([[NET, 'device']]);
    await collect();
    expect(s.naming).toBe(false);
  });

  it('ends when its first inventory fails (a wedged shell times out), and a phone that says no serial is named by its address', async () => {
    const failing = source(() => Promise.reject(new Error('timed out after 20 s')));
    failing.list([[NET, 'device']]);
    await failing.collect();
    expect(failing.s.naming).toBe(false);
    const unnamed = source(async (serial) => androidPhone(serial));
    unnamed.list([[NET, 'device']]);
    await unnamed.collect();
    expect(unnamed.s.naming).toBe(false);
  });

  it('does not start again when the same address comes back on a new connection, nor for an address the network memory names', async () => {
    const { s, list, collect } = source(async () => androidPhone('FA69P0301911'));
    list([[NET, 'device']]);
    await collect();
    list([[NET, 'offline']]);
    list([[NET, 'device']]);
    expect(s.naming).toBe(false);
    const other = source(never);
    other.registry.facet(REMEMBERED).set(recordKey('android', NET), 'FA69P0301911');
    other.list([[NET, 'device']]);
    expect(other.s.naming).toBe(false);
  });
});

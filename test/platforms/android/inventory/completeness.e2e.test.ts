import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AdbClient } from '../../../../src/platforms/android/adb/client.js';
import { DeviceProber } from '../../../../src/platforms/android/inventory/probe.js';
import { AdbServer } from '../../../sim/adb-server.js';
import { loadProfile, withProps, withSerial, type Profile } from '../../../sim/profile.js';
import { SimDevice, type SimDeviceOptions } from '../../../sim/sim-device.js';
import { NOTHING_DISABLED } from './support.js';

// Completeness: an inventory is whole only when its script reached its end.
// The real adb server, simulated devices whose shell output is cut mid-stream
// (the phone staying connected, or its transport dropping a moment later),
// the real AdbClient and the prober, on a clock that runs with the real one
// and jumps ahead (elapse) for the prober and the device's uptime alike.

const adb = new AdbServer();
const devices: SimDevice[] = [];
let skew = 0;

beforeAll(async () => {
  await adb.start();
});

afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.stop()));
});

afterAll(async () => {
  await adb.stop();
});

function elapse(ms: number, device: SimDevice): void {
  skew += ms;
  device.setUptime(device.uptimeSeconds + ms / 1000);
}

/** A copy of `profile` with some command outputs replaced (invented in this test, each named). */
function withOutputs(profile: Profile, outputs: Record<string, string>): Profile {
  const commands = new Map(profile.commands);
  for (const [line, output] of Object.entries(outputs)) commands.set(line, { output, exitCode: 0 });
  return { ...profile, commands };
}

// A whole-device recording (a bugreport of a Smartron T5911, Android 8.1); it
// has no /proc/uptime: an invented one, the same form as the POCO's recording.
const base = withOutputs(withSerial(loadProfile('smartron-t5911-android8.1'), 'RE14311190'), { 'cat /proc/uptime': '5000.10 9000.20\n' });
const batteryOutput = base.commands.get('dumpsys battery')!.output;

async function plug(profile: Profile, options: Partial<SimDeviceOptions> = {}): Promise<SimDevice> {
  const device = new SimDevice({ ...options, profile });
  devices.push(device);
  await adb.connect(await device.start());
  await adb.waitForState(device.serial, 'device', 20_000);
  return device;
}

function prober(timeoutMs = 10_000): DeviceProber {
  return new DeviceProber(new AdbClient({ host: '127.0.0.1', port: adb.port, source: 'test' }), {
    timeoutMs,
    config: { addedToCloud: true, support: NOTHING_DISABLED },
    now: () => performance.now() + skew,
  });
}

type Cache = Map<string, { sections: Map<string, string>; props?: Record<string, string> }>;
const cacheOf = (p: DeviceProber): Cache => (p as unknown as { cache: Cache }).cache;
const snapshot = (p: DeviceProber, serial: string) => {
  const entry = cacheOf(p).get(serial);
  return entry && { sections: [...entry.sections], props: { ...entry.props } };
};
const readAll = (device: SimDevice) => / getprop 2>&1$/m.test(device.commands.at(-1) ?? '');
/** Cuts the inventory script's output (the session whose command holds a section marker). */
const INVENTORY = /<<<DA:/;

describe('a read whose shell output ends early', () => {
  it('first read, the phone staying connected: reported with its identity and a message naming what is missing and why; no cache starts', async () => {
    const device = await plug(base, { cut: { on: INVENTORY, after: '  level: ', times: 1 } });
    const p = prober();
    const cut = await p.probe(device.serial, 'device');
    expect(device.cutSessions).toBe(1);
    expect(await adb.state(device.serial)).toBe('device');
    // The sections before the cut are good: identity and the slow tier.
    expect(cut).toMatchObject({ udid: 'RE14311190', modelName: 'T5911', platformVersion: '8.1.0', installedBrowsers: [{ name: 'chrome' }] });
    for (const field of ['battery', 'storage', 'memory', 'uptime'] as const) expect(cut[field], field).toBeUndefined();
    expect(cut.message).toMatch(/shell output ended before the inventory script did \(its shell or its adb connection closed\)/);
    expect(cut.message).toMatch(
      /\d+ of \d+ sections arrived; left out until the next inventory, which the agent asks for soon: battery, storage, memory, .*uptime/,
    );
    expect(cut.message).not.toMatch(/replug|reboot/i);
    expect(snapshot(p, device.serial)).toBeUndefined();
    // The next read is a whole first read.
    elapse(10_000, device);
    const whole = await p.probe(device.serial, 'device');
    expect(readAll(device)).toBe(true);
    expect(whole.message).toBeUndefined();
    expect(whole.battery?.percentage).toBe('74');
    expect(p.counters.fullReads).toBe(2);
  });

  it('a later read: the cache is neither replaced nor dropped; the cached tiers keep their last good values and the rest is named', async () => {
    const device = await plug(base);
    const p = prober();
    await p.probe(device.serial, 'device');
    const before = snapshot(p, device.serial);
    // Invented: a browser installed and a renamed device, read in a slow
    // refresh whose output ends in the middle of the battery section.
    await device.setProfile(
      withOutputs(base, {
        'pm list packages': base.commands.get('pm list packages')!.output + 'package:org.mozilla.firefox\n',
        'settings get global device_name': 'Lab phone 7\n',
      }),
    );
    p.invalidateSlow(device.serial);
    device.setCut({ on: INVENTORY, after: '  level: ', times: 1 });
    elapse(60_000, device);
    const cut = await p.probe(device.serial, 'device');
    expect(readAll(device)).toBe(false);
    expect(device.cutSessions).toBe(1);
    // Sections the cut read finished are reported fresh...
    expect(cut.deviceName).toBe('Lab phone 7');
    expect(cut.installedBrowsers!.map((b) => b.name)).toContain('firefox');
    // ...the connection tier from the cache, and what neither has is named.
    expect(cut).toMatchObject({ modelName: 'T5911', platformVersion: '8.1.0' });
    expect(cut.battery).toBeUndefined();
    expect(cut.message).toMatch(/left out until the next inventory, which the agent asks for soon: battery, storage, memory/);
    // The cut read changed nothing in the cache, and the slow tier is still due.
    expect(snapshot(p, device.serial)).toEqual(before);
    elapse(10_000, device);
    const whole = await p.probe(device.serial, 'device');
    expect(whole.message).toBeUndefined();
    expect(whole.battery?.percentage).toBe('74');
    expect(device.commands.at(-1)).toMatch(/pm list packages/);
    expect(snapshot(p, device.serial)).not.toEqual(before);
    expect(p.counters.fullReads).toBe(1);
  });

  it('the transport drops a moment after the cut: the same, and the next read after adb reconnects is whole', async () => {
    const device = await plug(base, { cut: { on: INVENTORY, after: '  level: ', times: 1, dropAfterMs: 100 } });
    const p = prober();
    const cut = await p.probe(device.serial, 'device');
    expect(cut.message).toMatch(/shell output ended before the inventory script did/);
    expect(cut.battery).toBeUndefined();
    expect(snapshot(p, device.serial)).toBeUndefined();
    // adb notices the drop and connects again.
    await adb.waitForState(device.serial, 'offline', 5_000).catch(() => undefined);
    await adb.waitForState(device.serial, 'device', 10_000);
    expect(device.connectionsAccepted).toBe(2);
    const whole = await p.probe(device.serial, 'device');
    expect(whole.message).toBeUndefined();
    expect(whole.battery?.percentage).toBe('74');
  });
});

describe('properties are kept as the probes declare them, whatever the first read held', () => {
  // What healthd prints with ro.boot.fake_battery set: level 42 and 424
  // tenths of a degree, whatever the hardware (BatteryMonitor.cpp).
  const fixed = batteryOutput.replace(/level: \d+/, 'level: 42').replace(/temperature: \d+/, 'temperature: 424');
  const board = withOutputs(withProps(base, { 'ro.boot.fake_battery': '1' }), { 'dumpsys battery': fixed });

  async function expectNeverFixed(device: SimDevice): Promise<void> {
    const p = prober();
    for (let read = 0; read < 3; read++) {
      const info = await p.probe(device.serial, 'device');
      expect(info.battery?.percentage, `read ${read}`).toBeUndefined();
      expect(info.battery?.temperature, `read ${read}`).toBeUndefined();
      elapse(60_000, device);
    }
    // The last reads were periodic ones, which do not read the properties again.
    expect(readAll(device)).toBe(false);
  }

  it("ro.boot.fake_battery: a first read cut in the battery section, then good reads: healthd's 42 % and 42.4 °C never appear", async () => {
    await expectNeverFixed(await plug(board, { cut: { on: INVENTORY, after: '  level: ', times: 1 } }));
  });

  it("ro.boot.fake_battery: a first read whose battery service is not up yet, then good reads: healthd's figures never appear", async () => {
    // What dumpsys prints for a service that is not registered (yet), as in
    // the recorded profiles' fallbacks: "Can't find service: battery".
    const device = await plug(withOutputs(board, { 'dumpsys battery': "Can't find service: battery\n" }));
    const p = prober();
    expect((await p.probe(device.serial, 'device')).battery).toBeUndefined();
    await device.setProfile(board);
    for (let read = 0; read < 2; read++) {
      elapse(60_000, device);
      const info = await p.probe(device.serial, 'device');
      expect(info.battery?.status).toBe('CHARGING');
      expect(info.battery?.percentage).toBeUndefined();
      expect(info.battery?.temperature).toBeUndefined();
    }
    expect(readAll(device)).toBe(false);
  });

  it('ro.radio.noril: a first read that lists a SIM slot, then one that lists none: a board without radio reports no carrier, not a data state', async () => {
    // Invented: a build with ro.radio.noril set whose SIM state reads
    // NOT_READY while its services start, and empty later.
    const starting = withProps(base, { 'ro.radio.noril': 'yes', 'gsm.sim.state': 'NOT_READY' });
    const device = await plug(starting);
    const p = prober();
    expect((await p.probe(device.serial, 'device')).telephony?.carriersInfo).toHaveLength(1);
    await device.setProfile(withProps(starting, { 'gsm.sim.state': '' }));
    p.invalidateSlow(device.serial);
    elapse(60_000, device);
    const later = await p.probe(device.serial, 'device');
    expect(readAll(device)).toBe(false);
    expect(later.telephony).toEqual({ carriersInfo: [] });
  });
});

/**
 * An inventory right after an adb server restart, asked again if the new
 * server drops the connection (read ECONNRESET, seen once in a clean-clone
 * run): the agent would ask at its next inventory, and a transport error
 * changes nothing the prober keeps.
 */
async function probeAfterRestart(p: DeviceProber, device: SimDevice): ReturnType<DeviceProber['probe']> {
  for (let tries = 1; ; tries++) {
    try {
      return await p.probe(device.serial, 'device');
    } catch (err) {
      if (tries >= 5) throw err;
      await backAfterRestart(device);
    }
  }
}

/** After an adb server restart: the device listed again and taking shells (adb kicks a fresh transport now and then). */
async function backAfterRestart(device: SimDevice): Promise<void> {
  for (let tries = 0; ; tries++) {
    await adb.waitForState(device.serial, 'device', 20_000);
    if ((await adb.adb(['-s', device.serial, 'shell', 'echo ok'])).stdout === 'ok\n' || tries >= 20) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a reboot the agent did not see', () => {
  const booted = withOutputs(base, { 'cat /proc/uptime': '30.00 50.00\n' });

  it('during an adb server restart, with a new uptime above the old one: caught by the boot instant, and read in full', async () => {
    const device = await plug(booted);
    // The previous test restarted the adb server: wait until this device takes shells before the first inventory.
    await backAfterRestart(device);
    const p = prober();
    expect((await probeAfterRestart(p, device)).platformVersion).toBe('8.1.0');
    // Full reads counted so far (a session the fresh server reset counts as one tried).
    const before = p.counters.fullReads;
    // The server goes down; meanwhile the phone takes an OTA and reboots, and
    // is up for 90 s by the time the agent looks again, 120 s later.
    await adb.kill();
    await device.reboot({ profile: withProps(booted, { 'ro.build.version.release': '9' }) });
    skew += 120_000;
    device.setUptime(90);
    await adb.restart({ reconnect: true });
    await backAfterRestart(device);
    const after = await probeAfterRestart(p, device);
    expect(after.uptime).toBeGreaterThanOrEqual(90);
    expect(after.platformVersion).toBe('9');
    expect(readAll(device)).toBe(true);
    expect(p.counters.fullReads).toBe(before + 1);
  });

  it('an adb server restart without a reboot: the boot instant holds, the cache too', async () => {
    const device = await plug(booted);
    // The previous test restarted the adb server: wait until this device takes shells before the first inventory.
    await backAfterRestart(device);
    const p = prober();
    // Asked as after a restart: the fresh server may still reset the first session (read ECONNRESET, clean-clone CI).
    await probeAfterRestart(p, device);
    const before = p.counters.fullReads;
    await adb.kill();
    await adb.restart({ reconnect: true });
    await backAfterRestart(device);
    elapse(120_000, device);
    const after = await probeAfterRestart(p, device);
    expect(after.uptime).toBeGreaterThanOrEqual(150);
    expect(readAll(device)).toBe(false);
    expect(p.counters.fullReads).toBe(before);
  });
});

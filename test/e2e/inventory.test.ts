import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { AdbServer } from '../sim/adb-server.js';
import { listProfiles, loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { baseEnv, runAgent } from './agent-process.js';

// The full inventory end to end: every recorded device profile behind the
// real adb server, one `once --dry-run`, and each device's fields checked
// against what its recordings say (values read off the recording files).

const adb = new AdbServer();
const devices = new Map<string, SimDevice>();
let body: { devices: DeviceInfo[] };

// Some recordings carry no serial: give those one so that they are told apart.
const serialFor: Record<string, string> = {
  'huawei-mate9-harmonyos2': 'MHA0AL00TEST',
  'emulator-sdk-android6': 'emulator-5554',
  'pixel-8-pro': 'HUSKY0TEST',
};

beforeAll(async () => {
  await adb.start();
  for (const name of listProfiles()) {
    const profile = serialFor[name] ? withSerial(loadProfile(name), serialFor[name]!) : loadProfile(name);
    const device = new SimDevice({ profile });
    devices.set(name, device);
    await adb.connect(await device.start());
  }
  const run = await runAgent(['once', '--dry-run'], baseEnv({ ...adb.env }));
  expect(run.code, run.stderr).toBe(0);
  body = JSON.parse(run.stdout);
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([...devices.values()].map((d) => d.stop()));
});

const byUdid = (udid: string) => body.devices.find((d) => d.udid === udid);

describe('full inventory of recorded devices', () => {
  it('reports every device, each with one shell session', () => {
    expect(body.devices).toHaveLength(devices.size);
    for (const [name, device] of devices) {
      expect(device.shellSessions, name).toBeGreaterThanOrEqual(1);
      expect(device.shellSessions, name).toBeLessThanOrEqual(2);
    }
  });

  it('Samsung Galaxy S25+ (One UI): identity and the dumpsys battery figures', () => {
    expect(byUdid('R5CY743GDFY')).toMatchObject({
      state: 'device',
      status: 'AVAILABLE',
      platformVersion: '16',
      modelName: 'SM-S936B',
      brandName: 'samsung',
      cpuArchitecture: 'arm64-v8a',
      isEmulator: false,
      // dumpsys-battery.txt: status 5, health 2, level 100/100, voltage 4312, temperature 309 (tenths of °C)
      battery: { status: 'FULL', health: 'GOOD', percentage: '100', voltage: 4312, temperature: 31, technology: 'Li-ion' },
    });
  });

  it('Xiaomi POCO F6: marketing name, battery and the IP address', () => {
    expect(byUdid('f89a5ec6')).toMatchObject({
      platformVersion: '15',
      modelName: '24069PC21I',
      brandName: 'POCO',
      deviceName: 'POCO F6',
      // dumpsys-battery.txt: status 2, level 80, voltage 4228, temperature 364
      battery: { status: 'CHARGING', health: 'GOOD', percentage: '80', voltage: 4228, temperature: 36, technology: 'Li-poly' },
      networkReachability: { ipAddress: '192.168.1.130' },
    });
  });

  it('Huawei Mate 9 on HarmonyOS 2: the Android base version and the brand from the fingerprint', () => {
    const huawei = byUdid('MHA0AL00TEST');
    expect(huawei).toMatchObject({ platformVersion: '9', brandName: 'HUAWEI', isEmulator: false, isRooted: false });
  });

  it('Android 6 emulator: emulator flag and toolbox df storage in bytes', () => {
    const emulator = byUdid('emulator-5554');
    expect(emulator).toMatchObject({ platformVersion: '6.0', isEmulator: true, cpuArchitecture: 'x86_64' });
    // df-data.txt: /data 21.9G size, 12.1G used (toolbox units, 1024-based)
    expect(emulator!.storage!.total).toBe(Math.round(21.9 * 1024 ** 3));
    expect(emulator!.storage!.used).toBe(Math.round(12.1 * 1024 ** 3));
  });

  it('OnePlus Nord N10 and Pixel 8 Pro (getprop only): identity, and nothing invented for the rest', () => {
    expect(byUdid('90241ad3')).toMatchObject({ platformVersion: '11', modelName: 'BE2028', brandName: 'OnePlus', deviceName: 'OnePlus Nord N10 5G' });
    const pixel = byUdid('HUSKY0TEST')!;
    expect(pixel).toMatchObject({ platformVersion: '16', modelName: 'Pixel 8 Pro', brandName: 'google' });
    for (const field of ['battery', 'storage', 'memory', 'resolution', 'uptime', 'bootTime'] as const) {
      expect(pixel[field], field).toBeUndefined();
    }
  });
});

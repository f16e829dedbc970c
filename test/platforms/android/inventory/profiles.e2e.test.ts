// The whole inventory path on recorded devices: the real script runs in a real
// shell whose PATH holds only the simulator's stubs for the profile, and its
// output is split and assembled exactly as the agent does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../../src/cloud/types.js';
import { assembleDeviceInfo } from '../../../../src/platforms/android/inventory/assemble.js';
import { buildInventoryScript, splitSections } from '../../../../src/platforms/android/inventory/script.js';
import { PROBES } from '../../../../src/platforms/android/inventory/probes/registry.js';
import { TIERS } from '../../../../src/platforms/android/inventory/probes/types.js';
import { loadProfile } from '../../../sim/profile.js';
import { spawnShell } from '../../../sim/shell.js';
import { writeStubs } from '../../../sim/stubs.js';
import { NOTHING_DISABLED } from './support.js';

const support = NOTHING_DISABLED;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function inventory(profileName: string, adbSerial: string): Promise<{ info: DeviceInfo; sections: Map<string, string> }> {
  const profile = loadProfile(profileName);
  const dir = await mkdtemp(join(tmpdir(), 'inv-profile-'));
  dirs.push(dir);
  const stubs = await writeStubs(profile, dir);
  const script = buildInventoryScript({ tiers: TIERS, reachabilityHost: 'cloud.example.com' });
  const child = spawnShell(script, stubs, dir);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.resume();
  await new Promise((resolve) => child.on('close', resolve));
  const { sections, ended } = splitSections(output);
  expect(ended).toBe(true);
  const info = assembleDeviceInfo({
    adbSerial,
    adbState: 'device',
    sections,
    config: { addedToCloud: true, support, reachabilityHost: 'cloud.example.com' },
  });
  return { info, sections };
}

describe('inventory of recorded devices', () => {
  it('every section prints even where commands are missing, through a pty (Android 6)', async () => {
    const { sections } = await inventory('emulator-sdk-android6', 'emulator-5554');
    expect(sections.size).toBe(PROBES.length);
    for (const text of sections.values()) expect(text).not.toContain('\r');
  });

  it('Samsung Galaxy S25+ (Android 16)', async () => {
    const { info } = await inventory('samsung-galaxy-s25-plus', '192.168.1.20:5555');
    expect(info).toMatchObject({
      udid: 'R5CY743GDFY',
      platformVersion: '16',
      modelName: 'SM-S936B',
      brandName: 'samsung',
      deviceName: 'SM-S936B',
      cpuArchitecture: 'arm64-v8a',
      isEmulator: false,
      isRooted: false,
      battery: { status: 'FULL', health: 'GOOD', technology: 'Li-ion', percentage: '100', temperature: 31, voltage: 4312 },
      // Two SIM slots in gsm.sim.state; Android 16 lets the shell read no IMEI.
      telephony: {
        carriersInfo: [
          { slot: 0, imei: '', meid: '', iccid: '' },
          { slot: 1, imei: '', meid: '', iccid: '' },
        ],
      },
    });
    // Unrecorded probes leave only their own fields out.
    expect(info.storage).toBeUndefined();
    expect(info.resolution).toBeUndefined();
  });

  it('Xiaomi POCO F6: marketing name, battery, Ethernet address', async () => {
    const { info } = await inventory('xiaomi-poco-f6', 'f89a5ec6');
    expect(info).toMatchObject({
      udid: 'f89a5ec6',
      modelName: '24069PC21I',
      brandName: 'POCO',
      deviceName: 'POCO F6',
      battery: { status: 'CHARGING', percentage: '80', temperature: 36, voltage: 4228 },
      networkReachability: { ipAddress: '192.168.1.130', host: 'cloud.example.com' },
    });
  });

  it('Huawei Mate 9 on HarmonyOS 2: Android version, and the resolution with both overrides', async () => {
    const { info } = await inventory('huawei-mate9-harmonyos2', 'MHA0123');
    expect(info).toMatchObject({
      udid: 'MHA0123',
      platformVersion: '9',
      brandName: 'HUAWEI', // from ro.build.fingerprint: the dump has no ro.product.brand
      isEmulator: false,
    });
    // wm-size.txt: Physical 1080x1920, Override 480x1024; wm-density.txt: Physical 480, Override 320.
    expect(info.resolution).toEqual({ width: 1080, height: 1920, logical: { width: 480, height: 1024 }, projection: 320 });
  });

  it('OnePlus Nord N10 with only getprop answering: identity complete, nothing else invented', async () => {
    const { info } = await inventory('oneplus-nord-n10', '90241ad3');
    expect(info).toMatchObject({
      udid: '90241ad3',
      modelName: 'BE2028',
      deviceName: 'OnePlus Nord N10 5G',
      platformVersion: '11',
      telephony: { carriersInfo: [{ slot: 0, imei: '', meid: '', iccid: '' }] },
    });
    for (const field of ['battery', 'storage', 'memory', 'resolution', 'orientation', 'installedBrowsers', 'uptime', 'bootTime', 'isRooted'] as const) {
      expect(info[field], field).toBeUndefined();
    }
  });

  it('emulator (Android 6): emulator flag, toolbox df storage', async () => {
    const { info } = await inventory('emulator-sdk-android6', 'emulator-5554');
    expect(info).toMatchObject({
      udid: 'emulator-5554',
      platformVersion: '6.0',
      modelName: 'Android SDK built for x86_64',
      isEmulator: true,
      storage: { total: Math.round(21.9 * 1024 ** 3), used: Math.round(12.1 * 1024 ** 3) },
      telephony: { carriersInfo: [{ slot: 0, imei: '', meid: '', iccid: '' }] },
    });
  });
});

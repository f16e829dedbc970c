import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { deviceRows } from '../../src/status/device-rows.js';
import { ANDROID_NAME } from '../../src/platforms/android/name.js';
import { IOS_NAME } from '../../src/platforms/ios/name.js';

const device = (udid: string, platformName: string, extra: Partial<DeviceInfo> = {}): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName,
  isAndroid: false,
  isIos: false,
  ...extra,
});

// A row names its device's platform as the platform names itself
// (src/agent/platforms.ts), never by guessing from the iOS flag (issue 41).
describe('deviceRows: platform', () => {
  const names = [ANDROID_NAME, IOS_NAME];

  it("shows each platform's own name", () => {
    const rows = deviceRows([device('A1', 'ANDROID', { isAndroid: true }), device('I1', 'IOS', { isIos: true })], new DeviceRegistry(), { names });
    expect(rows.map((r) => r.platform)).toEqual(['Android', 'iOS']);
  });

  it("shows a third platform by the cloud's platformName, not as Android", () => {
    const [row] = deviceRows([device('H1', 'HARMONYOS')], new DeviceRegistry(), { names });
    expect(row!.platform).toBe('HARMONYOS');
  });
});

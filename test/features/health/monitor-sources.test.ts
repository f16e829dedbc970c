import { describe, expect, it } from 'vitest';
import { shippedHealth } from './defaults.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { HealthMonitor, problemsOf } from '../../../src/features/health/monitor.js';
import { captureLogger } from '../../log/capture.js';
import { androidPhone } from '../../support/devices.js';

// The health rules read what the records and their sources say, never a
// platform's name (issue 41): a failure counts as a shell session only on a
// platform whose source says so, and a phone is over the network by its
// HOST:PORT serial.
const settings = { ...shippedHealth, shellFailures: 3 };
const ready = (udid: string, extra: Partial<DeviceInfo> = {}): DeviceInfo => ({
  ...androidPhone(udid),
  battery: { status: 'CHARGING', temperature: 30, percentage: '80' },
  ...extra,
});
const iphone = (udid: string): DeviceInfo => ready(udid, { state: 'paired', isIos: true, isAndroid: false, platformName: 'IOS' });

/** A registry with one record of this platform, identified, that failed its inventory `failures` times. */
function failing(platform: 'android' | 'ios', serial: string, udid: string, failures: number): DeviceRegistry {
  const registry = new DeviceRegistry();
  registry.sync(platform, new Map([[serial, platform === 'ios' ? 'paired' : 'device']]));
  registry.readings.identify(`${platform}/${serial}`, udid);
  for (let i = 0; i < failures; i++) registry.readings.failed(`${platform}/${serial}`, 'no answer', 1_000 + i, 1_000 + i);
  return registry;
}

describe('HealthMonitor: what the sources say of their records', () => {
  it("counts a record's failures as shell sessions only on a platform whose source counts them", () => {
    const monitor = new HealthMonitor(settings, captureLogger().logger);
    const reg = failing('ios', 'IP1', 'IP1', 5);
    monitor.apply([iphone('IP1')], reg, new Set(['android']));
    expect(problemsOf(reg, 'ios/IP1'), "an iPhone's lockdown failures are no shell").not.toContain('shell_unresponsive');
    const counted = failing('ios', 'IP2', 'IP2', 5);
    monitor.apply([iphone('IP2')], counted, new Set(['ios']));
    expect(problemsOf(counted, 'ios/IP2'), 'the same record, on a platform that counts shell sessions').toContain('shell_unresponsive');
    const adb = failing('android', 'S1', 'S1', 5);
    monitor.apply([ready('S1')], adb, new Set(['android']));
    expect(problemsOf(adb, 'android/S1')).toContain('shell_unresponsive');
  });

  it('says a phone is over the network by its HOST:PORT serial, whatever its platform', () => {
    const monitor = new HealthMonitor(settings, captureLogger().logger);
    const low = (udid: string): DeviceInfo => ready(udid, { battery: { status: 'DISCHARGING', temperature: 30, percentage: '5' } });
    const [net] = monitor.apply([low('N1')], failing('android', '10.0.0.7:5555', 'N1', 0), new Set(['android']));
    const [plugged] = monitor.apply([low('U1')], failing('android', 'U1', 'U1', 0), new Set(['android']));
    expect(net!.message).toMatch(/reached over the network/);
    expect(plugged!.message).toMatch(/check the USB cable/);
  });
});

import { describe, expect, it } from 'vitest';
import { shippedHealth } from './defaults.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { HealthMonitor } from '../../src/health/monitor.js';
import { captureLogger } from '../log/capture.js';

const settings = shippedHealth;

const phone = (udid: string, temperature: number, extra: Partial<DeviceInfo> = {}): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  battery: { status: 'CHARGING', temperature, percentage: '80' },
  storage: { total: 64 * 1024 ** 3, used: 10 * 1024 ** 3 },
  ...extra,
});
/** A registry listing these udids as ready Android phones (a USB serial is the udid). */
function lab(...udids: string[]): DeviceRegistry {
  const registry = new DeviceRegistry();
  registry.sync('android', new Map(udids.map((u) => [u, 'device'])));
  for (const u of udids) registry.identify(`android/${u}`, u);
  return registry;
}
const problemsOf = (registry: DeviceRegistry, udid: string): readonly string[] => registry.byUdid(udid)[0]?.problems ?? [];

describe('HealthMonitor', () => {
  it('a hot phone: message, UNAVAILABLE and one warning for as long as it is hot; one line when it has cooled', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('HOT1', 'COOL');
    const input = phone('HOT1', 47);
    const [first] = monitor.apply([input, phone('COOL', 30)], reg);
    expect(first!.status).toBe('UNAVAILABLE');
    expect(first!.message).toMatch(/battery at 47 °C/);
    expect(input.status).toBe('AVAILABLE');
    expect(problemsOf(reg, 'HOT1')).toEqual(['battery_hot']);
    for (const t of [46, 44, 43]) expect(monitor.apply([phone('HOT1', t)], reg)[0]!.status).toBe('UNAVAILABLE');
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ udid: 'HOT1', problem: 'battery_hot' });
    const [cooled] = monitor.apply([phone('HOT1', 42)], reg);
    expect(cooled!.status).toBe('AVAILABLE');
    expect(cooled!.message).toBeUndefined();
    expect(problemsOf(reg, 'HOT1')).toEqual([]);
    expect(lines().filter((l) => /battery hot is over/.test(String(l.msg)))).toHaveLength(1);
  });

  it('an informing rule adds its message and keeps the status; messages join the collector’s', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('FULL');
    const full = phone('FULL', 30, { storage: { total: 16 * 1024 ** 3, used: 16 * 1024 ** 3 - 100 * 1024 ** 2 }, message: 'inventory cut short' });
    const [out] = monitor.apply([full], reg);
    expect(out!.status).toBe('AVAILABLE');
    expect(out!.message).toBe('inventory cut short; storage nearly full: 100 MiB free of 16 GiB; uninstall test apps or clear /sdcard');
  });

  it('counts shell failures from the caller, and leaves the wording to the collector when it has a message', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('W1');
    for (let i = 0; i < 3; i++) reg.failed('android/W1', 'did not answer', 0, 0);
    const [quiet] = monitor.apply([phone('W1', 30, { message: 'has not answered since ...' })], reg);
    expect(problemsOf(reg, 'W1')).toEqual(['shell_unresponsive']);
    expect(quiet!.message).toBe('has not answered since ...');
  });

  it('a device that is not ready keeps its problems; a device gone is forgotten', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('H2');
    monitor.apply([phone('H2', 50)], reg);
    const offline: DeviceInfo = { ...phone('H2', 0), state: 'offline', battery: undefined, storage: undefined };
    expect(monitor.apply([offline], reg)[0]).toBe(offline);
    expect(problemsOf(reg, 'H2')).toEqual(['battery_hot']);
    monitor.apply([phone('H2', 50)], reg);
    expect(lines().filter((l) => l.level === 'warn')).toHaveLength(1);
    // Unplugged: the source drops its record, and its problems with it.
    reg.sync('android', new Map());
    expect(problemsOf(reg, 'H2')).toEqual([]);
  });

  it('applies to a paired iPhone as to a ready Android phone', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = new DeviceRegistry();
    reg.sync('ios', new Map([['IPHONE', 'attached']]));
    reg.identify('ios/IPHONE', 'IPHONE');
    monitor.apply([phone('IPHONE', 46, { state: 'paired', isIos: true, isAndroid: false, platformName: 'IOS' })], reg);
    expect(problemsOf(reg, 'IPHONE')).toEqual(['battery_hot']);
  });
});

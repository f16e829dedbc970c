import { describe, expect, it } from 'vitest';
import { shippedHealth } from './defaults.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
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
const noFailures = (): number => 0;

describe('HealthMonitor', () => {
  it('a hot phone: message, UNAVAILABLE and one warning for as long as it is hot; one line when it has cooled', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const input = phone('HOT1', 47);
    const [first] = monitor.apply([input, phone('COOL', 30)], noFailures);
    expect(first!.status).toBe('UNAVAILABLE');
    expect(first!.message).toMatch(/battery at 47 °C/);
    expect(input.status).toBe('AVAILABLE');
    expect(monitor.problems('HOT1')).toEqual(['battery_hot']);
    for (const t of [46, 44, 43]) expect(monitor.apply([phone('HOT1', t)], noFailures)[0]!.status).toBe('UNAVAILABLE');
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ udid: 'HOT1', problem: 'battery_hot' });
    const [cooled] = monitor.apply([phone('HOT1', 42)], noFailures);
    expect(cooled!.status).toBe('AVAILABLE');
    expect(cooled!.message).toBeUndefined();
    expect(monitor.problems('HOT1')).toEqual([]);
    expect(lines().filter((l) => /battery hot is over/.test(String(l.msg)))).toHaveLength(1);
  });

  it('an informing rule adds its message and keeps the status; messages join the collector’s', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const full = phone('FULL', 30, { storage: { total: 16 * 1024 ** 3, used: 16 * 1024 ** 3 - 100 * 1024 ** 2 }, message: 'inventory cut short' });
    const [out] = monitor.apply([full], noFailures);
    expect(out!.status).toBe('AVAILABLE');
    expect(out!.message).toBe('inventory cut short; storage nearly full: 100 MiB free of 16 GiB; uninstall test apps or clear /sdcard');
  });

  it('counts shell failures from the caller, and leaves the wording to the collector when it has a message', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const [quiet] = monitor.apply([phone('W1', 30, { message: 'has not answered since ...' })], () => 3);
    expect(monitor.problems('W1')).toEqual(['shell_unresponsive']);
    expect(quiet!.message).toBe('has not answered since ...');
  });

  it('a device that is not ready keeps its problems; a device gone is forgotten', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    monitor.apply([phone('H2', 50)], noFailures);
    const offline: DeviceInfo = { ...phone('H2', 0), state: 'offline', battery: undefined, storage: undefined };
    expect(monitor.apply([offline], noFailures)[0]).toBe(offline);
    expect(monitor.problems('H2')).toEqual(['battery_hot']);
    monitor.apply([phone('H2', 50)], noFailures);
    expect(lines().filter((l) => l.level === 'warn')).toHaveLength(1);
    monitor.apply([], noFailures);
    expect(monitor.problems('H2')).toEqual([]);
  });

  it('applies to a paired iPhone as to a ready Android phone', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    monitor.apply([phone('IPHONE', 46, { state: 'paired', isIos: true, isAndroid: false, platformName: 'IOS' })], noFailures);
    expect(monitor.problems('IPHONE')).toEqual(['battery_hot']);
  });
});

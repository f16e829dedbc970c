import { describe, expect, it } from 'vitest';
import { shippedHealth } from './defaults.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { withVerdicts } from '../../../src/devices/compose.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { batteryOf as stateOf, HealthMonitor, problemsOf } from '../../../src/features/health/monitor.js';
import { captureLogger } from '../../log/capture.js';
import { androidPhone } from '../../support/devices.js';

const settings = shippedHealth;

const phone = (udid: string, temperature: number, extra: Partial<DeviceInfo> = {}): DeviceInfo => ({
  ...androidPhone(udid),
  battery: { status: 'CHARGING', temperature, percentage: '80' },
  storage: { total: 64 * 1024 ** 3, used: 10 * 1024 ** 3 },
  ...extra,
});
/**
 * A registry listing these ready Android phones: a udid alone is a USB serial
 * that is its own udid; a [serial, udid] pair is a record under another
 * serial (a network phone's host:port, or a second record of one phone).
 */
function lab(...phones: Array<string | readonly [serial: string, udid: string]>): DeviceRegistry {
  const pairs = phones.map((p) => (typeof p === 'string' ? ([p, p] as const) : p));
  const registry = new DeviceRegistry();
  registry.sync('android', new Map(pairs.map(([serial]) => [serial, 'device'])));
  for (const [serial, udid] of pairs) registry.readings.identify(`android/${serial}`, udid);
  return registry;
}
/** The device as the report tells the cloud of it, with the verdicts standing on it (health's among them). */
const told = (registry: DeviceRegistry, d: DeviceInfo): DeviceInfo => withVerdicts(d, registry.timeline.verdictsOf(d.udid));
const problemsByUdid = (registry: DeviceRegistry, udid: string): readonly string[] => problemsOf(registry, registry.byUdid(udid)[0]?.key);

describe('HealthMonitor', () => {
  it('a hot phone: message, UNAVAILABLE and one warning for as long as it is hot; one line when it has cooled', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('HOT1', 'COOL');
    const input = phone('HOT1', 47);
    const [first] = monitor.apply([input, phone('COOL', 30)], reg);
    expect(told(reg, first!).status).toBe('UNAVAILABLE');
    expect(first!.message).toMatch(/battery at 47 °C/);
    expect(input.status).toBe('AVAILABLE');
    expect(problemsByUdid(reg, 'HOT1')).toEqual(['battery_hot']);
    for (const t of [46, 44, 43]) expect(told(reg, monitor.apply([phone('HOT1', t)], reg)[0]!).status).toBe('UNAVAILABLE');
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ udid: 'HOT1', problem: 'battery_hot' });
    const [cooled] = monitor.apply([phone('HOT1', 42)], reg);
    expect(told(reg, cooled!).status).toBe('AVAILABLE');
    expect(cooled!.message).toBeUndefined();
    expect(problemsByUdid(reg, 'HOT1')).toEqual([]);
    expect(lines().filter((l) => /battery hot is over/.test(String(l.msg)))).toHaveLength(1);
  });

  it('a low battery on a phone reached over the network (adb over TCP) sends no one to a USB cable: plug it into a charger', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab(['10.0.0.7:5555', 'NET1'], 'USB1');
    const low = (udid: string) => phone(udid, 30, { battery: { status: 'DISCHARGING', temperature: 30, percentage: '10' } });
    const [net, usb] = monitor.apply([low('NET1'), low('USB1')], reg);
    expect(net!.message).toMatch(
      /battery at 10 % and not charging: it is reached over the network, so no USB cable or hub of this host feeds it; plug it into a charger/,
    );
    expect(usb!.message).toMatch(/battery at 10 % and not charging: check the USB cable and that the hub's power supply is on/);
  });

  it('an informing rule adds its message and keeps the status; messages join the collector’s', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('FULL');
    const full = phone('FULL', 30, { storage: { total: 16 * 1024 ** 3, used: 16 * 1024 ** 3 - 100 * 1024 ** 2 }, message: 'inventory cut short' });
    const [out] = monitor.apply([full], reg);
    expect(told(reg, out!).status).toBe('AVAILABLE');
    expect(out!.message).toBe('inventory cut short; storage nearly full: 100 MiB free of 16 GiB; uninstall test apps or clear /sdcard');
  });

  it('counts shell failures from the caller, and leaves the wording to the collector when it has a message', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('W1');
    for (let i = 0; i < 3; i++) reg.readings.failed('android/W1', 'did not answer', 0, 0);
    const [quiet] = monitor.apply([phone('W1', 30, { message: 'has not answered since ...' })], reg);
    expect(problemsByUdid(reg, 'W1')).toEqual(['shell_unresponsive']);
    expect(quiet!.message).toBe('has not answered since ...');
  });

  it('a device that is not ready keeps its problems; a device gone is forgotten', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('H2');
    monitor.apply([phone('H2', 50)], reg);
    const offline: DeviceInfo = { ...phone('H2', 0), state: 'offline', battery: undefined, storage: undefined };
    expect(monitor.apply([offline], reg)[0]).toBe(offline);
    expect(problemsByUdid(reg, 'H2')).toEqual(['battery_hot']);
    monitor.apply([phone('H2', 50)], reg);
    expect(lines().filter((l) => l.level === 'warn')).toHaveLength(1);
    // Unplugged: the source drops its record, and its problems with it.
    reg.sync('android', new Map());
    expect(problemsByUdid(reg, 'H2')).toEqual([]);
  });

  it('applies to a paired iPhone as to a ready Android phone', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = new DeviceRegistry();
    reg.sync('ios', new Map([['IPHONE', 'attached']]));
    reg.readings.identify('ios/IPHONE', 'IPHONE');
    monitor.apply([phone('IPHONE', 46, { state: 'paired', isIos: true, isAndroid: false, platformName: 'IOS' })], reg);
    expect(problemsByUdid(reg, 'IPHONE')).toEqual(['battery_hot']);
  });
});

describe('HealthMonitor: battery wear signals', () => {
  const samsung = (udid: string, observedAtMs: number, extra: Partial<DeviceInfo> = {}): DeviceInfo =>
    phone(udid, 31, {
      // The zebrunner #150 lab phone: 100 %, FULL, on USB, ASOC 96, 1 cycle (samsung-oneui.txt).
      battery: { status: 'FULL', health: 'GOOD', temperature: 31, percentage: '100' },
      batteryDetail: { externalPower: true, healthPercent: 96, cycleCount: 1, observedAtMs },
      ...extra,
    });
  const batteryOf = (registry: DeviceRegistry, udid: string) => stateOf(registry, registry.byUdid(udid)[0]?.key)?.signals;

  it('no report carries the battery detail, ready or not, and the inputs keep theirs', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('S1', 'S2');
    const input = samsung('S1', 1_000);
    const offline: DeviceInfo = { ...samsung('S2', 1_000), state: 'offline' };
    const out = monitor.apply([input, offline], reg);
    for (const d of out) expect(d).not.toHaveProperty('batteryDetail');
    expect(input.batteryDetail).toBeDefined();
    expect(batteryOf(reg, 'S1')).toEqual({ heldFullSeconds: 0 });
  });

  it('held full: timed by the readings, one warning once past the limit, the gauge back to 0 and one line when unplugged', () => {
    const { logger, lines } = captureLogger();
    const monitor = new HealthMonitor({ ...settings, batteryHeldFullSeconds: 3600 }, logger);
    const reg = lab('S1');
    const t0 = 1_700_000_000_000;
    expect(monitor.apply([samsung('S1', t0)], reg)[0]!.message).toBeUndefined();
    monitor.apply([samsung('S1', t0 + 3_600_000)], reg);
    expect(problemsByUdid(reg, 'S1')).toEqual([]);
    const [held] = monitor.apply([samsung('S1', t0 + 3_601_000)], reg);
    expect(problemsByUdid(reg, 'S1')).toEqual(['battery_held_full']);
    expect(told(reg, held!).status).toBe('AVAILABLE');
    expect(held!.message).toMatch(/^battery held full on external power for 60 min \(limit 60 min\)/);
    expect(batteryOf(reg, 'S1')!.heldFullSeconds).toBe(3601);
    // The same reading reported again (the phone stopped answering) adds no time.
    monitor.apply([samsung('S1', t0 + 3_601_000)], reg);
    expect(batteryOf(reg, 'S1')!.heldFullSeconds).toBe(3601);
    const unplugged = samsung('S1', t0 + 3_700_000, { battery: { status: 'DISCHARGING', percentage: '100' } });
    unplugged.batteryDetail = { ...unplugged.batteryDetail, externalPower: false };
    expect(monitor.apply([unplugged], reg)[0]!.message).toBeUndefined();
    expect(batteryOf(reg, 'S1')!.heldFullSeconds).toBe(0);
    expect(
      lines()
        .filter((l) => l.problem === 'battery_held_full')
        .map((l) => [l.level, l.msg]),
    ).toEqual([
      ['warn', expect.stringMatching(/^device S1: battery held full/)],
      ['info', 'device S1: battery held full is over'],
    ]);
  });

  it("a reading without its time (an iPhone's) is timed by the monitor's clock", () => {
    const { logger } = captureLogger();
    let now = 0;
    const monitor = new HealthMonitor({ ...settings, batteryHeldFullSeconds: 10 }, logger, () => now);
    const reg = new DeviceRegistry();
    reg.sync('ios', new Map([['IP', 'paired']]));
    reg.readings.identify('ios/IP', 'IP');
    const iphone = phone('IP', 30, { state: 'paired', isIos: true, isAndroid: false, platformName: 'IOS', battery: { status: 'FULL', percentage: '100' } });
    monitor.apply([iphone], reg);
    now = 11_000;
    monitor.apply([iphone], reg);
    expect(batteryOf(reg, 'IP')!.heldFullSeconds).toBe(11);
    expect(problemsByUdid(reg, 'IP')).toEqual(['battery_held_full']);
  });

  it("the charger counts only while the phone is plugged; the health name reaches the rules, the wear figures do not (they are wear's)", () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    const reg = lab('X1', 'WORN');
    const xiaomi = phone('X1', 36, { batteryDetail: { externalPower: true, chargerMillivolts: 11000 } });
    const [fast] = monitor.apply([xiaomi, samsung('WORN', 0, { batteryDetail: { externalPower: true, healthPercent: 77, cycleCount: 1764 } })], reg);
    expect(fast!.message).toMatch(/^the charger offers 11\.0 V/);
    expect(problemsByUdid(reg, 'WORN')).toEqual([]);
    monitor.apply([phone('X1', 36, { batteryDetail: { externalPower: false, chargerMillivolts: 11000 } })], reg);
    expect(problemsByUdid(reg, 'X1')).toEqual([]);
    expect(batteryOf(reg, 'X1')).toEqual({ heldFullSeconds: 0 });
    monitor.apply([phone('X1', 18, { battery: { status: 'NOT_CHARGING', health: 'OVERHEAT', temperature: 18, percentage: '80' } })], reg);
    expect(problemsByUdid(reg, 'X1')).toEqual(['battery_unhealthy']);
  });

  it('the state is kept in every record behind the udid and goes with them', () => {
    const { logger } = captureLogger();
    const monitor = new HealthMonitor(settings, logger);
    // The same phone on USB and over TCP: two records, one udid.
    const reg = lab('S1', ['10.0.0.7:5555', 'S1']);
    monitor.apply([samsung('S1', 0)], reg);
    monitor.apply([samsung('S1', 60_000)], reg);
    expect(reg.byUdid('S1').map((r) => stateOf(reg, r.key)?.signals.heldFullSeconds)).toEqual([60, 60]);
    reg.sync('android', new Map());
    reg.sync('android', new Map([['S1', 'device']]));
    reg.readings.identify('android/S1', 'S1');
    monitor.apply([samsung('S1', 5_000_000)], reg);
    expect(batteryOf(reg, 'S1')!.heldFullSeconds).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { shippedHealth } from './defaults.js';
import { evaluate, type Problem } from '../../../src/features/health/rules.js';

const s = shippedHealth;
const none = new Set<Problem>();
const ok = { consecutiveShellFailures: 0 };
const problems = (findings: ReturnType<typeof evaluate>): string[] => findings.map((f) => f.problem);

describe('health rules', () => {
  it('a battery is hot at 45 °C and stays hot until it has cooled to 42 °C', () => {
    expect(evaluate({ ...ok, temperatureCelsius: 44 }, none, s)).toEqual([]);
    const hot = evaluate({ ...ok, temperatureCelsius: 45 }, none, s);
    expect(hot.map((f) => [f.problem, f.unavailable])).toEqual([['battery_hot', true]]);
    expect(hot[0]!.message).toMatch(/45 °C.*at or below 42 °C/);
    const was = new Set<Problem>(['battery_hot']);
    expect(problems(evaluate({ ...ok, temperatureCelsius: 43 }, was, s))).toEqual(['battery_hot']);
    expect(evaluate({ ...ok, temperatureCelsius: 42 }, was, s)).toEqual([]);
  });

  it('whether a rule makes the device UNAVAILABLE is the setting of that rule', () => {
    expect(evaluate({ ...ok, temperatureCelsius: 50 }, none, { ...s, batteryHotUnavailable: false })[0]!.unavailable).toBe(false);
    expect(evaluate({ ...ok, batteryPercent: 5, charging: false }, none, { ...s, batteryLowUnavailable: true })[0]!.unavailable).toBe(true);
  });

  it('a low battery counts only while it is known not to charge', () => {
    expect(evaluate({ ...ok, batteryPercent: 15, charging: true }, none, s)).toEqual([]);
    expect(evaluate({ ...ok, batteryPercent: 15 }, none, s)).toEqual([]);
    expect(evaluate({ ...ok, batteryPercent: 16, charging: false }, none, s)).toEqual([]);
    expect(problems(evaluate({ ...ok, batteryPercent: 15, charging: false }, none, s))).toEqual(['battery_low']);
  });

  it('a low battery names what feeds the phone: the USB cable and hub, or for a phone reached over the network, its charger', () => {
    expect(evaluate({ ...ok, batteryPercent: 15, charging: false }, none, s)[0]!.message).toMatch(/check the USB cable and that the hub's power supply is on$/);
    const network = evaluate({ ...ok, batteryPercent: 15, charging: false, overNetwork: true }, none, s)[0]!.message;
    expect(network).not.toMatch(/USB cable and/);
    expect(network).toMatch(/reached over the network, so no USB cable or hub of this host feeds it; plug it into a charger$/);
  });

  it('storage is nearly full under 1 GiB or under 5 % free', () => {
    const GiB = 1024 ** 3;
    expect(problems(evaluate({ ...ok, storageFreeBytes: 2 * GiB, storageTotalBytes: 100 * GiB }, none, s))).toEqual(['storage_full']);
    expect(evaluate({ ...ok, storageFreeBytes: 2 * GiB, storageTotalBytes: 32 * GiB }, none, s)).toEqual([]);
    expect(problems(evaluate({ ...ok, storageFreeBytes: GiB - 1, storageTotalBytes: 8 * GiB }, none, s))).toEqual(['storage_full']);
    expect(evaluate({ ...ok, storageFreeBytes: GiB, storageTotalBytes: 8 * GiB }, none, s)).toEqual([]);
    // A total of 0 (a failed read) is no percentage.
    expect(evaluate({ ...ok, storageFreeBytes: 2 * GiB, storageTotalBytes: 0 }, none, s)).toEqual([]);
  });

  it('an unanswered shell counts from the configured number of misses; 0 turns the rule off', () => {
    expect(evaluate({ consecutiveShellFailures: 2 }, none, s)).toEqual([]);
    expect(problems(evaluate({ consecutiveShellFailures: 3 }, none, s))).toEqual(['shell_unresponsive']);
    expect(evaluate({ consecutiveShellFailures: 9 }, none, { ...s, shellFailures: 0 })).toEqual([]);
  });

  it('a device with no readings has no problem', () => {
    expect(evaluate(ok, none, s)).toEqual([]);
  });
});

describe('battery wear rules', () => {
  it('a battery the phone reports as anything but good; GOOD, UNKNOWN and no reading are not a problem', () => {
    for (const health of ['OVERHEAT', 'DEAD', 'OVER_VOLTAGE', 'COLD', 'UNSPECIFIED_FAILURE']) {
      const found = evaluate({ ...ok, batteryHealth: health }, none, s);
      expect(
        found.map((f) => [f.problem, f.unavailable]),
        health,
      ).toEqual([['battery_unhealthy', false]]);
      expect(found[0]!.message).toContain(`battery health as ${health}:`);
    }
    for (const health of ['GOOD', 'UNKNOWN', 'toString', undefined]) expect(evaluate({ ...ok, batteryHealth: health }, none, s), String(health)).toEqual([]);
    expect(evaluate({ ...ok, batteryHealth: 'DEAD' }, none, { ...s, batteryHealthUnavailable: true })[0]!.unavailable).toBe(true);
  });

  it('held full: longer than the setting, not at it; 0 turns the rule off', () => {
    const limit = s.batteryHeldFullSeconds;
    expect(evaluate({ ...ok, heldFullSeconds: limit }, none, s)).toEqual([]);
    const held = evaluate({ ...ok, heldFullSeconds: limit + 1 }, none, s);
    expect(problems(held)).toEqual(['battery_held_full']);
    expect(held[0]!.message).toMatch(/^battery held full on external power for 24 h \(limit 24 h\): .*battery protection/);
    expect(held[0]!.unavailable).toBe(false);
    expect(evaluate({ ...ok, heldFullSeconds: 10 ** 7 }, none, { ...s, batteryHeldFullSeconds: 0 })).toEqual([]);
    expect(evaluate({ ...ok, heldFullSeconds: 3 }, none, { ...s, batteryHeldFullSeconds: 2 })[0]!.message).toMatch(/for 3 s \(limit 2 s\)/);
    expect(evaluate({ ...ok, heldFullSeconds: 5400 }, none, { ...s, batteryHeldFullSeconds: 3600 })[0]!.message).toMatch(/for 90 min \(limit 60 min\)/);
  });

  it('a charger above the setting (6 V by default: 9 V fast charging is, 5 V USB is not); 0 turns the rule off', () => {
    expect(evaluate({ ...ok, chargerMillivolts: 5000 }, none, s)).toEqual([]);
    expect(evaluate({ ...ok, chargerMillivolts: s.chargingVoltageMaxMillivolts }, none, s)).toEqual([]);
    const fast = evaluate({ ...ok, chargerMillivolts: s.chargingVoltageMaxMillivolts + 1 }, none, s);
    expect(problems(fast)).toEqual(['charging_voltage_high']);
    expect(evaluate({ ...ok, chargerMillivolts: 11000 }, none, s)[0]!.message).toMatch(/^the charger offers 11\.0 V \(limit 6\.0 V\): .*5 V port/);
    expect(evaluate({ ...ok, chargerMillivolts: 20000 }, none, { ...s, chargingVoltageMaxMillivolts: 0 })).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { shippedHealth } from './defaults.js';
import { evaluate, type Problem } from '../../src/health/rules.js';

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

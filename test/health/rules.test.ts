import { describe, expect, it } from 'vitest';
import { defaultHealthSettings as s, evaluate, type Problem } from '../../src/health/rules.js';

const none = new Set<Problem>();
describe('health rules', () => {
  it('battery hot at 45 °C, stays hot until it cools 3 °C below', () => {
    expect(evaluate({ temperatureCelsius: 44.9, consecutiveShellFailures: 0 }, none, s)).toEqual([]);
    const hot = evaluate({ temperatureCelsius: 45, consecutiveShellFailures: 0 }, none, s);
    expect(hot.map((f) => [f.problem, f.unavailable])).toEqual([['battery_hot', true]]);
    const was = new Set<Problem>(['battery_hot']);
    expect(evaluate({ temperatureCelsius: 42.5, consecutiveShellFailures: 0 }, was, s).length).toBe(1);
    expect(evaluate({ temperatureCelsius: 42, consecutiveShellFailures: 0 }, was, s)).toEqual([]);
  });
  it('low battery only while not charging; storage by bytes or percent; shell failures', () => {
    expect(evaluate({ batteryPercent: 15, charging: true, consecutiveShellFailures: 0 }, none, s)).toEqual([]);
    expect(evaluate({ batteryPercent: 15, charging: false, consecutiveShellFailures: 0 }, none, s)[0]!.problem).toBe('battery_low');
    expect(evaluate({ storageFreeBytes: 2 * 1024 ** 3, storageTotalBytes: 100 * 1024 ** 3, consecutiveShellFailures: 0 }, none, s)[0]!.problem).toBe('storage_full');
    expect(evaluate({ storageFreeBytes: 2 * 1024 ** 3, storageTotalBytes: 32 * 1024 ** 3, consecutiveShellFailures: 0 }, none, s)).toEqual([]);
    expect(evaluate({ consecutiveShellFailures: 3 }, none, s)[0]!.problem).toBe('shell_unresponsive');
  });
});

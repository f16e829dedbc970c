import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../src/features/readiness/settings.js';
import { meetsValue, readValue } from '../../src/devices/readiness-grammar.js';
import { judge, verdictMessage } from '../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../src/platforms/android/inventory/parsers/readiness.js';
import { readinessSection } from '../features/readiness/section.js';

// The value grammar readiness and its fix-it action share, on the values
// the framework's own readers take (src/devices/readiness-grammar.ts names
// each reader): stay awake's bit mask of power sources, the scales' clamp,
// the flags' 0 and 1.

const stayAwake = (value: string) =>
  judge(
    parseReadiness(readinessSection({ lists: { global: { text: `stay_on_while_plugged_in=${value}\n` } } }))!,
    parseReadinessChecks(['stayAwake']),
    'google',
  );

describe('stay_on_while_plugged_in: a bit mask of power sources (BatteryManager: AC 1, USB 2, wireless 4, dock 8)', () => {
  it('passes only with the USB bit a lab needs: 1 (AC only) fails, 2, 3, 7 and 15 pass', () => {
    const table = ['0', '1', '2', '3', '4', '5', '7', '8', '12', '15'].map((v) => [v, stayAwake(v).ready]);
    expect(table).toEqual([
      ['0', false],
      ['1', false],
      ['2', true],
      ['3', true],
      ['4', false],
      ['5', false],
      ['7', true],
      ['8', false],
      ['12', false],
      ['15', true],
    ]);
  });

  it('says why a phone on AC only fails: it sleeps on USB', () => {
    expect(verdictMessage(stayAwake('1'))).toContain(
      'stay awake while charging is 1 (stay_on_while_plugged_in: AC only, asleep on USB), expected on over USB: Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7)',
    );
    expect(verdictMessage(stayAwake('5'))).toContain('is 5 (stay_on_while_plugged_in: AC, wireless, asleep on USB)');
  });

  it("a lab's own value: off is 0 alone; a number is that number", () => {
    expect(meetsValue('plugged', '0', 'off')).toBe(true);
    expect(meetsValue('plugged', '1', 'off')).toBe(false);
    expect(meetsValue('plugged', '3', '3')).toBe(true);
    expect(meetsValue('plugged', '7', '3')).toBe(false);
  });
});

describe('the grammar of each kind', () => {
  it("flags: Java's Integer.parseInt, then only 0 and 1", () => {
    expect(['0', '1', '+1', '01', '2', '-1', '1.0', ' 1', '', 'true', 'null'].map((v) => readValue('flag', v))).toEqual([
      '0',
      '1',
      '1',
      '1',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('scales: a finite decimal, clamped to 0..20 as WindowManagerService.fixScale does', () => {
    expect(['0', '0.0', '.5', '1.0', '-1', '30', '1e0', 'NaN', 'Infinity', '', '1.0f'].map((v) => readValue('scale', v))).toEqual([
      '0',
      '0',
      '0.5',
      '1',
      '0',
      '20',
      '1',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("Wi-Fi: WifiSettingsStore's four states, nothing else", () => {
    expect(['0', '1', '2', '3', '4', '-1', 'on'].map((v) => readValue('wifi', v))).toEqual(['0', '1', '2', '3', undefined, undefined, undefined]);
  });
});

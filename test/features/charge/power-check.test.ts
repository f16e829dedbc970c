import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkBack, checkCut, cutCheck, powerOf, type PowerBounds } from '../../../src/features/charge/power-check.js';
import { onExternalPower, parseBattery } from '../../../src/platforms/android/inventory/parsers/battery.js';

// The power path check's decisions (issue 43), pure. What a reading says of
// the phone's power is read from real dumps of `dumpsys battery` (the
// parser's fixtures, sources in their SOURCES.md), all taken on a charger;
// the off-power readings are built, since no public dump of an unplugged
// phone is among them.

const fixture = (name: string) => {
  const reading = parseBattery(readFileSync(new URL(`../../platforms/android/inventory/parsers/fixtures/battery/${name}`, import.meta.url), 'utf8'));
  return { battery: { status: reading.status }, batteryDetail: { externalPower: onExternalPower(reading) } };
};

const BOUNDS: PowerBounds = { cutWithinMs: 20_000, readings: 2 };
const OFF_AT = 1_000_000;

describe('powerOf: what a reading says of the power', () => {
  it('on power from the charger lines, whatever the status (a Samsung holding at its cap says NOT_CHARGING on USB)', () => {
    expect(powerOf(fixture('samsung-galaxy-a35-sm-a356e-android16.txt'))).toBe('on-power');
    expect(powerOf(fixture('samsung-oneui.txt'))).toBe('on-power');
    expect(powerOf(fixture('pixel-c-dragon-android7-ac-5v.txt'))).toBe('on-power');
  });

  it('off power when the charger lines say so; from the status only where they are missing, and NOT_CHARGING alone says nothing', () => {
    expect(powerOf({ battery: { status: 'CHARGING' }, batteryDetail: { externalPower: false } })).toBe('off-power');
    expect(powerOf({ battery: { status: 'DISCHARGING' } })).toBe('off-power');
    expect(powerOf({ battery: { status: 'FULL' } })).toBe('on-power');
    expect(powerOf({ battery: { status: 'NOT_CHARGING' } })).toBe('unknown');
    expect(powerOf({ battery: { percentage: '90' } })).toBe('unknown');
    expect(powerOf(undefined)).toBe('unknown');
  });
});

describe('checkCut: after the off switch', () => {
  const start = cutCheck(OFF_AT);

  it('a phone gone from its port, or off power, is a cut', () => {
    expect(checkCut(start, 'gone', BOUNDS).verdict).toEqual({ kind: 'cut', seen: 'gone' });
    expect(checkCut(start, { at: OFF_AT + 3_000, seen: 'off-power' }, BOUNDS).verdict).toEqual({ kind: 'cut', seen: 'off-power' });
  });

  it('names the port only after two readings on power, the last taken 20 s after the switch or later', () => {
    let check = start;
    const look = (at: number) => {
      const next = checkCut(check, { at, seen: 'on-power' }, BOUNDS);
      check = next.check;
      return next.verdict;
    };
    expect(look(OFF_AT + 5_000)).toEqual({ kind: 'wait' });
    // The same reading looked at again counts once.
    expect(look(OFF_AT + 5_000)).toEqual({ kind: 'wait' });
    expect(check.onPower).toBe(1);
    expect(look(OFF_AT + 12_000), 'two readings, but too soon').toEqual({ kind: 'wait' });
    expect(look(OFF_AT + 21_000)).toEqual({ kind: 'not-cut', readings: 3, afterMs: 21_000 });
    // Decided: nothing changes it.
    expect(checkCut(check, 'gone', BOUNDS)).toEqual({ check, verdict: { kind: 'wait' } });
  });

  it('no evidence: a reading from before the switch, one that says nothing of power, or none', () => {
    expect(checkCut(start, { at: OFF_AT - 1, seen: 'on-power' }, BOUNDS)).toEqual({ check: start, verdict: { kind: 'wait' } });
    expect(checkCut(start, undefined, BOUNDS)).toEqual({ check: start, verdict: { kind: 'wait' } });
    const silent = checkCut(start, { at: OFF_AT + 30_000, seen: 'unknown' }, BOUNDS);
    expect(silent.verdict).toEqual({ kind: 'wait' });
    expect(silent.check.onPower).toBe(0);
  });
});

describe('checkBack: after the on switch', () => {
  it('charging as soon as a reading shows power; off power is waited past until the bound, then said', () => {
    expect(checkBack({ now: 10, until: 100, seen: 'on-power' })).toBe('charging');
    expect(checkBack({ now: 10, until: 100, seen: 'off-power' })).toBe('wait');
    expect(checkBack({ now: 100, until: 100, seen: 'off-power' })).toBe('not-charging');
    expect(checkBack({ now: 10, until: 100, seen: undefined })).toBe('wait');
    expect(checkBack({ now: 100, until: 100, seen: undefined })).toBe('not-back');
    expect(checkBack({ now: 10, until: 100, seen: 'unknown' })).toBe('no-evidence');
  });
});

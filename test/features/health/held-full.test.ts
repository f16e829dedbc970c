import { describe, expect, it } from 'vitest';
import { fullOnPower, heldFullSeconds, observeFull, type HeldFull } from '../../../src/features/health/held-full.js';

describe('fullOnPower', () => {
  it('at 100 % or status FULL, with a charger on', () => {
    expect(fullOnPower({ percentage: '100', status: 'CHARGING' }, true)).toBe(true);
    expect(fullOnPower({ percentage: '95', status: 'FULL' }, true)).toBe(true);
    // Samsung's protection holds 100 % on USB with status NOT_CHARGING: still held full.
    expect(fullOnPower({ percentage: '100', status: 'NOT_CHARGING' }, true)).toBe(true);
    expect(fullOnPower({ percentage: '99', status: 'CHARGING' }, true)).toBe(false);
    expect(fullOnPower({ percentage: '100', status: 'DISCHARGING' }, false)).toBe(false);
    expect(fullOnPower(undefined, true)).toBe(false);
  });

  it('where the phone does not say whether a charger is on, a status only a plugged battery has stands for it', () => {
    expect(fullOnPower({ percentage: '100', status: 'FULL' }, undefined)).toBe(true);
    expect(fullOnPower({ percentage: '100', status: 'CHARGING' }, undefined)).toBe(true);
    expect(fullOnPower({ percentage: '100', status: 'NOT_CHARGING' }, undefined)).toBe(false);
    expect(fullOnPower({ percentage: '100' }, undefined)).toBe(false);
  });
});

describe('observeFull', () => {
  it('counts from the first reading at full to the latest, by the readings’ own times', () => {
    let state: HeldFull | undefined;
    state = observeFull(state, true, 1_000);
    state = observeFull(state, true, 61_000);
    expect(state).toEqual({ sinceMs: 1_000, lastMs: 61_000 });
    expect(heldFullSeconds(state!)).toBe(60);
    // The same reading again (a device reported with its last inventory): no time added.
    expect(heldFullSeconds(observeFull(state, true, 61_000)!)).toBe(60);
  });

  it('a reading that is not full ends the stretch; the next full one starts again', () => {
    const state = observeFull(observeFull(undefined, true, 0), false, 10_000);
    expect(state).toBeUndefined();
    expect(observeFull(state, true, 20_000)).toEqual({ sinceMs: 20_000, lastMs: 20_000 });
  });

  it('a reading older than the last (the clock stepped back) starts a new stretch instead of counting back', () => {
    const state = observeFull({ sinceMs: 0, lastMs: 3_600_000 }, true, 60_000);
    expect(state).toEqual({ sinceMs: 60_000, lastMs: 60_000 });
    expect(heldFullSeconds(state!)).toBe(0);
  });
});

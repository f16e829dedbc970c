import { describe, expect, it } from 'vitest';
import { latest, withFigures } from '../../../src/features/wear/history.js';

describe('wear history', () => {
  it("a figure's latest is the newest day that told it, past newer days that did not, and none when no day told it", () => {
    let history = withFigures([], 10, { health: 95, cycles: 100 });
    history = withFigures(history, 11, { health: 94 });
    history = withFigures(history, 12, { appId: 10_200 });
    expect(latest(history, 'health')).toBe(94);
    expect(latest(history, 'cycles')).toBe(100);
    expect(latest(history, 'lifeUsed')).toBeUndefined();
  });

  it('a day told before the newest (a clock stepped back) goes in its place, and a day told again keeps its other figures', () => {
    let history = withFigures([], 20, { health: 90 });
    history = withFigures(history, 18, { health: 92 });
    history = withFigures(history, 20, { cycles: 300 });
    expect(history).toEqual([
      { day: 18, health: 92 },
      { day: 20, health: 90, cycles: 300 },
    ]);
    expect(latest(history, 'health')).toBe(90);
  });
});

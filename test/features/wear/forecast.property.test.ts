import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forecast, type ForecastRule, type Sample } from '../../../src/features/wear/forecast.js';
import { propertyRuns } from '../../support/property-runs.js';

// The forecast on virtual time (days) over generated histories: a battery
// whose health fades is named (days left within the notice) on some day
// before its true health crosses the limit; one that holds steady, read with
// a gauge that wobbles by a step either way, is never named on any day.

const LIMIT = 80;
const NOTICE = 30;
const HEALTH: ForecastRule = { limit: LIMIT, direction: 'down', step: 1 };

/** Reading days from 0: gaps of 1-3 days (a phone unplugged a day or two, a host down). */
const days = (count: number) =>
  fc
    .array(fc.integer({ min: 1, max: 3 }), { minLength: count, maxLength: count })
    .map((gaps) => gaps.reduce<number[]>((out, g) => [...out, (out.at(-1) ?? -1) + g], []));

describe('forecast of battery health (property)', () => {
  it('a fading battery is named before it crosses the limit', () => {
    fc.assert(
      fc.property(
        // Fade rate (points a day) and the day the true health crosses the limit.
        fc.double({ min: 0.1, max: 0.5, noNaN: true }),
        fc.integer({ min: 30, max: 300 }),
        days(400),
        fc.array(fc.double({ min: -0.4, max: 0.4, noNaN: true }), { minLength: 400, maxLength: 400 }),
        (rate, crossing, when, noise) => {
          const start = LIMIT + rate * crossing;
          // The history can show a fade over its noise: a start a phone can have, and enough of it before the crossing.
          fc.pre(start <= 100 && rate * Math.min(crossing, 90) >= 9);
          const samples: Sample[] = [];
          for (const [i, day] of when.entries()) {
            if (day >= crossing) break;
            samples.push({ day, value: Math.round(start - rate * day + noise[i]!) });
            const f = forecast(samples, HEALTH, day);
            if (f !== undefined && f.days <= NOTICE) return true;
          }
          return false;
        },
      ),
      propertyRuns(300),
    );
  });

  it('a battery that holds steady is never named, whatever its gauge wobbles by a step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: LIMIT + 3, max: 100 }),
        days(200),
        fc.array(fc.constantFrom(-1, 0, 1), { minLength: 200, maxLength: 200 }),
        (level, when, wobble) => {
          const samples: Sample[] = [];
          for (const [i, day] of when.entries()) {
            samples.push({ day, value: level + wobble[i]! });
            const f = forecast(samples, HEALTH, day);
            if (f !== undefined) return false;
          }
          return true;
        },
      ),
      propertyRuns(300),
    );
  });

  it('the same over growing figures: cycles counting toward their limit are named before they pass it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 3, noNaN: true }), fc.integer({ min: 60, max: 400 }), days(500), (perDay, crossing, when) => {
        const rule: ForecastRule = { limit: 800, direction: 'up', step: 1 };
        const start = 800 - perDay * crossing;
        fc.pre(start >= 0);
        const samples: Sample[] = [];
        for (const day of when) {
          if (day >= crossing) break;
          samples.push({ day, value: Math.floor(start + perDay * day) });
          const f = forecast(samples, rule, day);
          if (f !== undefined && f.days <= NOTICE) return true;
        }
        return false;
      }),
      propertyRuns(200),
    );
  });
});

describe('forecast (examples)', () => {
  it('a reading past the limit is now; too short a history tells nothing', () => {
    expect(forecast([{ day: 10, value: 79 }], HEALTH, 10)).toEqual({ days: 0, value: 79 });
    expect(
      forecast(
        [
          { day: 0, value: 95 },
          { day: 5, value: 85 },
        ],
        HEALTH,
        5,
      ),
    ).toBeUndefined();
  });

  it('a steady fade of half a point a day from 95, read daily for 20 days: about 10 days left', () => {
    const samples = Array.from({ length: 21 }, (_, day) => ({ day, value: 95 - day / 2 }));
    const f = forecast(samples, HEALTH, 20)!;
    expect(f.ratePerDay).toBeCloseTo(0.5, 5);
    expect(f.days).toBe(10);
  });

  it('a figure moving away from its limit has no forecast', () => {
    const samples = Array.from({ length: 30 }, (_, day) => ({ day, value: 80 + day }));
    expect(forecast(samples, HEALTH, 29)).toBeUndefined();
  });
});

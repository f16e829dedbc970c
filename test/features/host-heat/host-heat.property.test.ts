import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOST_HOT_PHONES, HOST_HOT_WINDOW_MS, HostHeat, type HeatReading, type HostHeatLine } from '../../../src/features/host-heat/host-heat.js';
import { isHot } from '../../../src/features/health/rules.js';
import { shippedHealth } from '../health/defaults.js';

// The host-level judgement of hot batteries on virtual time: the clock is the
// number the test hands in, advanced by random steps between reports.

const PHONES = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6'];
const hot = shippedHealth.batteryHotCelsius;

/** One report: minutes since the last one, and each phone's temperature (undefined: not in the report). */
const report = fc.record({
  stepMs: fc.integer({ min: 0, max: 6 * 60_000 }),
  temps: fc.array(fc.option(fc.integer({ min: hot - 15, max: hot + 8 }), { nil: undefined }), { minLength: PHONES.length, maxLength: PHONES.length }),
});

function run(reports: ReadonlyArray<{ stepMs: number; temps: ReadonlyArray<number | undefined> }>) {
  const heat = new HostHeat(shippedHealth);
  const lines: Array<HostHeatLine | undefined> = [];
  let now = 1_000;
  // Turning hot, counted with the health rule itself: a phone hot now that was not (or had no reading) at the report before.
  let crossings = 0;
  let was = new Map<string, boolean>();
  for (const r of reports) {
    now += r.stepMs;
    const readings: HeatReading[] = [];
    const next = new Map<string, boolean>();
    r.temps.forEach((t, i) => {
      if (t === undefined) return;
      const udid = PHONES[i]!;
      readings.push({ udid, celsius: t });
      const h = isHot(t, was.get(udid) ?? false, shippedHealth);
      if (h && !was.get(udid)) crossings++;
      next.set(udid, h);
    });
    was = next;
    lines.push(heat.observe(readings, now));
  }
  return { heat, lines, crossings, now };
}

describe('host-level hot batteries on random temperature sequences, virtual time', () => {
  it('one start and one end per episode, alternating; at most two lines per HOST_HOT_PHONES phones turning hot, whatever the number of reports', () => {
    fc.assert(
      fc.property(fc.array(report, { minLength: 1, maxLength: 60 }), (reports) => {
        const { lines, crossings } = run(reports);
        const said = lines.filter((l) => l !== undefined);
        said.forEach((l, i) => expect(l.kind).toBe(i % 2 === 0 ? 'start' : 'over'));
        const starts = said.filter((l) => l.kind === 'start').length;
        expect(starts).toBeLessThanOrEqual(Math.floor(crossings / HOST_HOT_PHONES));
        expect(said.length).toBeLessThanOrEqual(2 * Math.floor(crossings / HOST_HOT_PHONES));
      }),
      { numRuns: 300 },
    );
  });

  it('never a line per report: phones that stay hot say nothing after the first line', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: HOST_HOT_PHONES, max: PHONES.length }),
        fc.integer({ min: 2, max: 80 }),
        fc.integer({ min: 1, max: 120_000 }),
        (n, reports, stepMs) => {
          const temps = PHONES.map((_, i) => (i < n ? hot + 3 : hot - 10));
          const { lines, heat } = run(Array.from({ length: reports }, () => ({ stepMs, temps })));
          expect(lines.filter((l) => l !== undefined).map((l) => l.kind)).toEqual(['start']);
          expect(lines[0]?.kind).toBe('start');
          expect(heat.episode).toBe(true);
        },
      ),
    );
  });

  it('the episode ends when they cool: after any sequence, one report with every phone cooled ends it with one line, and it stays over', () => {
    fc.assert(
      fc.property(fc.array(report, { minLength: 1, maxLength: 40 }), (reports) => {
        const cool = { stepMs: 60_000, temps: PHONES.map(() => hot - 15) };
        const { lines, heat } = run([...reports, cool, cool]);
        const said = lines.filter((l) => l !== undefined);
        expect(heat.episode).toBe(false);
        expect(heat.hotPhones()).toEqual([]);
        if (said.length) expect(said.at(-1)!.kind).toBe('over');
        expect(lines.at(-1)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('a phone flapping around the limit beside others that stay hot starts no episode after the first has ended', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 40 }), fc.integer({ min: 1, max: 60_000 }), (flaps, stepMs) => {
        // P1 and P2 stay hot; P3 is hot or cooled at each report, well within the window.
        const reports = flaps.map((h) => ({ stepMs, temps: [hot + 3, hot + 3, h ? hot + 1 : hot - 10] }));
        const said = run([{ stepMs: 0, temps: [hot + 3, hot + 3, hot + 1] }, ...reports]).lines.filter((l) => l !== undefined);
        expect(said.filter((l) => l.kind === 'start')).toHaveLength(1);
        expect(said.filter((l) => l.kind === 'over').length).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('phones turning hot further apart than the window are no host-level episode', () => {
    fc.assert(
      fc.property(fc.integer({ min: HOST_HOT_WINDOW_MS + 1, max: 3 * HOST_HOT_WINDOW_MS }), (gap) => {
        // Each phone turns hot `gap` after the one before, and stays hot: a hot phone of its own each time.
        const reports = PHONES.map((_, i) => ({ stepMs: gap, temps: PHONES.map((__, j) => (j <= i ? hot + 2 : hot - 10)) }));
        expect(run(reports).lines.filter((l) => l !== undefined)).toEqual([]);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineRateLimiter, type RateLimitOptions } from '../../src/log/rate-limit.js';

const limits: RateLimitOptions = { burst: 10, windowMs: 60_000, maxSubjects: 5 };

/** Runs a sequence of (time, cause, subject) through a limiter; returns what was written, summaries included, per cause. */
function play(events: Array<{ at: number; cause: string; subject: string }>, options = limits) {
  const limiter = new LineRateLimiter(options);
  const written = new Map<string, number[]>();
  const summaries: Array<{ at: number; cause: string; suppressed: number }> = [];
  let offered = 0;
  const write = (cause: string, at: number) => written.set(cause, [...(written.get(cause) ?? []), at]);
  for (const e of events) {
    // The timer of limited.ts fires at each due time; between events it is the only writer.
    for (let due = limiter.nextDueAt(); due !== undefined && due <= e.at; due = limiter.nextDueAt()) {
      for (const s of limiter.due(due)) {
        write(s.cause, due);
        summaries.push({ at: due, cause: s.cause, suppressed: s.suppressed });
      }
    }
    // As limited.ts does on every line: what is due first.
    for (const s of limiter.due(e.at)) {
      write(s.cause, e.at);
      summaries.push({ at: e.at, cause: s.cause, suppressed: s.suppressed });
    }
    offered++;
    if (limiter.admit(e.cause, e.at, { subject: e.subject, text: `line ${offered}`, level: 'warn' })) write(e.cause, e.at);
  }
  const end = (events.at(-1)?.at ?? 0) + options.windowMs;
  for (const s of limiter.due(end)) {
    write(s.cause, end);
    summaries.push({ at: end, cause: s.cause, suppressed: s.suppressed });
  }
  return { written, summaries, limiter };
}

/** The most lines of one cause in any window (t - windowMs, t]. */
function worstWindow(times: number[], windowMs: number): number {
  let worst = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j >= 0 && times[j]! > times[i]! - windowMs; j--) n++;
    worst = Math.max(worst, n);
  }
  return worst;
}

// Random event sequences: bursts, trickles and floods of a few causes, with
// times that only go forward (the monotonic clock).
const sequence = fc
  .array(
    fc.record({
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 200_000 })),
      cause: fc.constantFrom('a', 'b', 'c'),
      subject: fc.string({ maxLength: 4 }),
      repeat: fc.integer({ min: 1, max: 300 }),
    }),
    { maxLength: 60 },
  )
  .map((steps) => {
    const events: Array<{ at: number; cause: string; subject: string }> = [];
    let at = 0;
    for (const s of steps) {
      at += s.gap;
      for (let i = 0; i < s.repeat; i++) events.push({ at: at + i, cause: s.cause, subject: `${s.subject}${i % 7}` });
      at += s.repeat;
    }
    return events;
  });

describe('LineRateLimiter', () => {
  it('whatever the input, at most burst + 1 lines (summaries included) of one cause in any window', () => {
    fc.assert(
      fc.property(sequence, (events) => {
        const { written } = play(events);
        for (const times of written.values()) expect(worstWindow(times, limits.windowMs)).toBeLessThanOrEqual(limits.burst + 1);
      }),
      { numRuns: 1_000 },
    );
  });

  it('whatever the input, every line held back is counted in exactly one summary, and summaries of one cause are a window apart', () => {
    fc.assert(
      fc.property(sequence, (events) => {
        const { written, summaries } = play(events);
        const lines = [...written.values()].reduce((n, t) => n + t.length, 0);
        const counted = summaries.reduce((n, s) => n + s.suppressed, 0);
        expect(lines - summaries.length + counted).toBe(events.length);
        for (const cause of new Set(summaries.map((s) => s.cause))) {
          const at = summaries.filter((s) => s.cause === cause).map((s) => s.at);
          for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(limits.windowMs);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it('a cause that trickles, then floods, then keeps coming: no line overtakes the summary owed, burst + 1 in any window', () => {
    const events = [
      ...Array.from({ length: 10 }, (_, i) => ({ at: i * 5_000, cause: 'x', subject: 's' })),
      ...Array.from({ length: 200 }, (_, i) => ({ at: 50_000 + i * 1_000, cause: 'x', subject: 's' })),
    ];
    const { written, summaries } = play(events);
    expect(worstWindow(written.get('x')!, limits.windowMs)).toBeLessThanOrEqual(limits.burst + 1);
    expect(summaries[0]).toEqual({ at: 110_000, cause: 'x', suppressed: 60 });
  });

  it('drain hands out what is owed at once, and the window still holds for what follows', () => {
    const limiter = new LineRateLimiter({ ...limits, burst: 2 });
    for (let i = 0; i < 5; i++) limiter.admit('x', i);
    expect(limiter.drain()).toMatchObject([{ cause: 'x', suppressed: 3 }]);
    expect(limiter.drain()).toEqual([]);
    expect(limiter.admit('x', 10)).toBe(false);
  });

  it('lines that come less often than the bound are all written, none summarised', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 6_001, max: 100_000 }), { maxLength: 80 }), (gaps) => {
        let at = 0;
        const events = gaps.map((g) => ({ at: (at += g), cause: 'slow', subject: 'x' }));
        const { written, summaries } = play(events);
        expect(written.get('slow')?.length ?? 0).toBe(events.length);
        expect(summaries).toEqual([]);
      }),
    );
  });

  it('a flood of 5,000 subjects in one second: 10 lines, then one summary naming a few subjects and counting the rest', () => {
    const events = Array.from({ length: 5_000 }, (_, i) => ({ at: i / 5, cause: 'unsent', subject: `U${i}` }));
    const { written, summaries } = play(events);
    expect(written.get('unsent')).toHaveLength(11);
    expect(summaries).toEqual([{ at: events.at(-1)!.at + limits.windowMs, cause: 'unsent', suppressed: 4_990 }]);
    const limiter = new LineRateLimiter(limits);
    for (const e of events) limiter.admit(e.cause, 0, { subject: e.subject });
    const [summary] = limiter.due(limits.windowMs);
    expect(summary?.subjects).toEqual(['U10', 'U11', 'U12', 'U13', 'U14']);
    expect(summary?.moreSubjects).toBe(4_985);
  });

  it('forgets a cause once it has been quiet for a window: memory follows the causes of the last window, not the input', () => {
    const limiter = new LineRateLimiter(limits);
    for (let i = 0; i < 1_000; i++) limiter.admit(`cause-${i}`, i);
    expect(limiter.size).toBe(1_000);
    limiter.due(1_000 + limits.windowMs);
    expect(limiter.size).toBe(0);
  });

  it('keeps the worst level of the lines it held back for the summary', () => {
    const limiter = new LineRateLimiter({ ...limits, burst: 1 });
    limiter.admit('x', 0, { level: 'info' });
    limiter.admit('x', 1, { level: 'error', text: 'bad' });
    limiter.admit('x', 2, { level: 'info', text: 'last' });
    expect(limiter.due(limits.windowMs + 1)).toMatchObject([{ cause: 'x', suppressed: 2, level: 'error', example: 'last' }]);
  });
});

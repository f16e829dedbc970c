import { describe, expect, it } from 'vitest';
import { Reconnects } from '../../src/util/reconnects.js';
import { VirtualTime } from '../support/virtual-time.js';

describe('Reconnects', () => {
  it('grows the wait while connections die soon after opening, and starts over after one that held', () => {
    const time = new VirtualTime(0);
    const r = new Reconnects({ reconnectMinMs: 250, reconnectMaxMs: 10_000, stableMs: 10_000, summaryMs: 60_000 }, time.clock({ random: () => 0 }));
    const waits: number[] = [];
    const notes: Array<string | undefined> = [];
    for (let i = 0; i < 8; i++) {
      r.opened();
      time.advance(50);
      const { delayMs, note } = r.ended();
      waits.push(delayMs);
      notes.push(note);
      time.advance(delayMs);
    }
    expect(waits).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(notes).toEqual(['ended', undefined, 'flapping', undefined, undefined, undefined, undefined, undefined]);
    // A minute after the flapping line, still dying: one summary with the count since that line.
    const summaries: Array<{ ends: number; nth: number }> = [];
    for (let nth = 9; nth <= 13; nth++) {
      r.opened();
      const end = r.ended();
      time.advance(end.delayMs);
      if (end.note) summaries.push({ ends: end.ends, nth });
      expect(end.note ?? 'summary').toBe('summary');
    }
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.ends).toBe(summaries[0]!.nth - 3);
    // A connection that held: the next end is news again, and the wait starts over.
    r.opened();
    time.advance(10_000);
    expect(r.ended()).toMatchObject({ delayMs: 250, note: 'ended', ends: 1 });
    // A failed connect grows the wait as well.
    expect(r.failed()).toBe(500);
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SaidOnce, summaryText } from '../../src/log/said-once.js';
import { VirtualTime } from '../../src/util/clock.js';

describe('SaidOnce', () => {
  it('says a subject once, again when its text changes, and counts the repeats held back', () => {
    const time = new VirtualTime();
    const clock = time.clock();
    const said = new SaidOnce(() => clock.monotonic());
    expect(said.say('R58M|kick', 'identity in conflict')).toBe(true);
    time.advance(2_000);
    expect(said.say('R58M|kick', 'identity in conflict')).toBe(false);
    expect(said.say('R58M|kick', 'identity in conflict')).toBe(false);
    expect(said.of('R58M|kick')).toMatchObject({ repeats: 2, at: 0 });
    expect(said.say('R58M|kick', 'not behind its port')).toBe(true);
    expect(said.of('R58M|kick')).toMatchObject({ text: 'not behind its port', repeats: 0, at: 2_000 });
  });

  it('says a subject again once its condition ended (forget, retain)', () => {
    const clock = new VirtualTime().clock();
    const said = new SaidOnce(() => clock.monotonic());
    said.say('a');
    said.say('b');
    said.say('b');
    expect(said.forget('b')).toMatchObject({ repeats: 1 });
    expect(said.say('b')).toBe(true);
    said.retain((s) => s !== 'a');
    expect(said.say('a')).toBe(true);
    expect(said.say('b')).toBe(false);
  });

  it('sums the repeats up at most once per subject and period, on the injected clock', () => {
    const time = new VirtualTime();
    const clock = time.clock();
    const said = new SaidOnce(() => clock.monotonic());
    said.say('10.0.0.7:5555', 'connection refused');
    said.say('10.0.0.7:5555', 'connection refused');
    time.advance(59_999);
    expect(said.due(60_000)).toEqual([]);
    time.advance(1);
    const [summary, ...rest] = said.due(60_000);
    expect(rest).toEqual([]);
    expect(summary).toEqual({ subject: '10.0.0.7:5555', text: 'connection refused', repeats: 1, since: 0 });
    expect(summaryText(summary!, clock.monotonic())).toBe('10.0.0.7:5555: the same 1 more time in the last 60 s (said once): connection refused');
    // Nothing repeated since: nothing to sum up, however long it stands.
    time.advance(120_000);
    expect(said.due(60_000)).toEqual([]);
  });

  it('keeps at most `max` subjects, forgetting the oldest', () => {
    const clock = new VirtualTime().clock();
    const said = new SaidOnce(() => clock.monotonic(), 2);
    said.say('a');
    said.say('b');
    said.say('c');
    expect(said.size).toBe(2);
    expect(said.say('a')).toBe(true);
    expect(said.say('c')).toBe(false);
  });

  it('property: a line is said exactly when its text differs from the last said of its subject, and every other is counted', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('x', 'y'), fc.nat(5_000)), { maxLength: 60 }), (steps) => {
        const time = new VirtualTime();
        const clock = time.clock();
        const said = new SaidOnce(() => clock.monotonic());
        const last = new Map<string, string>();
        let held = 0;
        for (const [subject, text, wait] of steps) {
          time.advance(wait);
          const expected = last.get(subject) !== text;
          expect(said.say(subject, text)).toBe(expected);
          if (!expected) held++;
          last.set(subject, text);
        }
        time.advance(60_000);
        const summed = said.due(60_000).reduce((n, s) => n + s.repeats, 0);
        // Repeats of a text that later changed are dropped with it; the standing ones are all summed.
        expect(summed).toBeLessThanOrEqual(held);
        for (const [subject, text] of last) expect(said.of(subject)).toMatchObject({ text, repeats: 0 });
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SaidOnce } from '../../src/log/said-once.js';

describe('SaidOnce', () => {
  it('says a subject once, and again when its text changes', () => {
    const said = new SaidOnce();
    expect(said.say('R58M|kick', 'identity in conflict')).toBe(true);
    expect(said.say('R58M|kick', 'identity in conflict')).toBe(false);
    expect(said.say('R58M|kick', 'not behind its port')).toBe(true);
    expect(said.say('R58M|kick', 'not behind its port')).toBe(false);
    expect(said.forget('R58M|kick')).toBe('not behind its port');
  });

  it('says a subject again once its condition ended (forget, retain)', () => {
    const said = new SaidOnce();
    said.say('a');
    said.say('b');
    said.say('b');
    expect(said.forget('b')).toBe('');
    expect(said.say('b')).toBe(true);
    said.retain((s) => s !== 'a');
    expect(said.say('a')).toBe(true);
    expect(said.say('b')).toBe(false);
  });

  it('keeps at most `max` subjects, forgetting the oldest', () => {
    const said = new SaidOnce(2);
    said.say('a');
    said.say('b');
    said.say('c');
    expect(said.size).toBe(2);
    expect(said.say('a')).toBe(true);
    expect(said.say('c')).toBe(false);
  });

  it('property: a line is said exactly when its text differs from the last said of its subject, and every other held back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('x', 'y')), { maxLength: 60 }), (steps) => {
        const said = new SaidOnce();
        const last = new Map<string, string>();
        for (const [subject, text] of steps) {
          const expected = last.get(subject) !== text;
          expect(said.say(subject, text)).toBe(expected);
          last.set(subject, text);
        }
        for (const [subject, text] of last) expect(said.forget(subject)).toBe(text);
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { ansiPaint, noPaint, paintFor } from '../../src/util/paint.js';

describe('paintFor', () => {
  it('paints on a terminal only, and not when NO_COLOR is set or TERM is dumb', () => {
    expect(paintFor({ isTTY: true }, {})).toBe(ansiPaint);
    expect(paintFor({ isTTY: true }, { TERM: 'xterm-256color' })).toBe(ansiPaint);
    expect(paintFor({}, {})).toBe(noPaint);
    expect(paintFor({ isTTY: false }, {})).toBe(noPaint);
    expect(paintFor({ isTTY: true }, { NO_COLOR: '1' })).toBe(noPaint);
    expect(paintFor({ isTTY: true }, { TERM: 'dumb' })).toBe(noPaint);
  });

  it('takes an empty NO_COLOR as unset, as no-color.org says', () => {
    expect(paintFor({ isTTY: true }, { NO_COLOR: '' })).toBe(ansiPaint);
  });
});

describe('ansiPaint', () => {
  it("is util.styleText's green, yellow and red, whatever the process's own stdout and NO_COLOR (paintFor decides)", () => {
    expect([ansiPaint.ok('a'), ansiPaint.warn('b'), ansiPaint.bad('c')]).toEqual(['\u001b[32ma\u001b[39m', '\u001b[33mb\u001b[39m', '\u001b[31mc\u001b[39m']);
    expect(noPaint.bad('c')).toBe('c');
  });
});

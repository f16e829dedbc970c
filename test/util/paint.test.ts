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

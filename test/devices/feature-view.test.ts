import { describe, expect, it } from 'vitest';
import { placed, type Place } from '../../src/devices/feature-view.js';

// Where a feature's field, column or series goes among the view's own: the
// outputs (`list --json`'s keys, the table's columns, the /metrics series)
// keep their order whoever adds to them.

const add = (item: string, place?: Place) => ({ place, item });
const own = ['udid', 'product', 'up', 'message'];

describe('placed', () => {
  it('puts each right before or after the one it names, several at one place in registration order', () => {
    const added = [
      add('chargeState', { before: 'up' }),
      add('chargeWay', { after: 'product' }),
      add('chargePausedUntil', { before: 'up' }),
      add('problems', { after: 'up' }),
      add('late', { after: 'product' }),
    ];
    expect(placed(own, (k) => k, added)).toEqual(['udid', 'product', 'chargeWay', 'late', 'chargeState', 'chargePausedUntil', 'up', 'problems', 'message']);
  });

  it('puts at the end, in registration order, what names no place or one the view does not have', () => {
    expect(placed(own, (k) => k, [add('a'), add('b', { after: 'nothing' }), add('c', { before: 'udid' })])).toEqual([
      'c',
      'udid',
      'product',
      'up',
      'message',
      'a',
      'b',
    ]);
  });

  it("leaves the view's own as they are without additions", () => {
    expect(placed(own, (k) => k, [])).toEqual(own);
  });
});

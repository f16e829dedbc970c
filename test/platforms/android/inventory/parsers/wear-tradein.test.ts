import { describe, expect, it } from 'vitest';
import { parseWearTradeIn, shrinkTradeIn } from '../../../../../src/platforms/android/inventory/parsers/wear-tradein.js';
import { fixture } from '../../../../features/wear/section.js';

// `tradeinmode getstatus` on the Pixel 7 report of source.android.com
// (fixtures/SOURCES.md), and on what its builder and the shell print otherwise.

describe('tradeinmode getstatus', () => {
  it("reads the Pixel 7's battery and storage, and keeps neither its IMEIs nor its serial", () => {
    const text = fixture('pixel7-tradeinmode-getstatus.json');
    expect(parseWearTradeIn(text)).toEqual({
      battery: { source: 'tradeinmode', cycleCount: 16, healthPercent: 100, manufacturedAtMs: 1_653_004_800_000 },
      storage: { source: 'tradeinmode', lifeUsedPercent: 1 },
      unread: [],
    });
    const kept = shrinkTradeIn(text);
    expect(kept).not.toContain('353644930127905');
    expect(kept).not.toContain('26061FDH2000AP');
    expect(parseWearTradeIn(kept)).toEqual(parseWearTradeIn(text));
  });

  it('before Android 16 there is no such command: absent', () => {
    expect(parseWearTradeIn('/system/bin/sh: tradeinmode: inaccessible or not found\n').unread).toEqual([{ what: 'tradeinmode', why: 'absent' }]);
    expect(parseWearTradeIn('/system/bin/sh: tradeinmode: not found\n').unread).toEqual([{ what: 'tradeinmode', why: 'absent' }]);
    // Run under toybox's timeout (Android 7 and later), its exec's words.
    expect(parseWearTradeIn('timeout: exec tradeinmode: No such file or directory\n').unread).toEqual([{ what: 'tradeinmode', why: 'absent' }]);
  });

  it('a reply that is not JSON is a refusal; nothing at all is garbage', () => {
    expect(parseWearTradeIn('Error: Evaluation mode is not available.\n').unread).toEqual([{ what: 'tradeinmode', why: 'refused' }]);
    expect(parseWearTradeIn('').unread).toEqual([{ what: 'tradeinmode', why: 'garbage' }]);
    expect(parseWearTradeIn('{"battery": ').unread).toEqual([{ what: 'tradeinmode', why: 'refused' }]);
  });

  it('under factory reset protection the report holds only its locks: refused, with why', () => {
    expect(parseWearTradeIn('{"locks":{"factory_reset_protection":true}}').unread).toEqual([
      { what: 'tradeinmode', why: 'refused', detail: 'factory reset protection is on' },
    ]);
  });

  it('figures out of range read nothing (a health of 0, a negative count)', () => {
    const r = parseWearTradeIn('{"battery":{"cycle_count":-1,"health":0,"state":2},"storage":{"useful_lifetime_remaining":120}}');
    expect(r.battery).toBeUndefined();
    expect(r.storage).toBeUndefined();
    expect(r.unread).toEqual([{ what: 'tradeinmode battery', why: 'absent' }]);
  });
});

import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { drift, flipLine, flips } from '../../../src/features/readiness/drift.js';
import { judge, valuesOf } from '../../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { fixture, readinessSection } from './section.js';

const baseline = parseReadinessChecks(['stayAwake', 'verifyAdbInstalls', 'wifi']);
/** The recording with verify apps over USB on (a row of 1; the recording has none, which is unread). */
const A5 = fixture('lineage18-sm-a520f-global.txt') + 'verifier_verify_adb_installs=1\n';
const read = (global: string) => valuesOf(parseReadiness(readinessSection({ lists: { global: { text: global } } }))!, baseline, 'samsung');

describe('readiness drift', () => {
  it('names each value that changed between two readings of the recorded Galaxy A5, and whether it meets the baseline now', () => {
    const before = read(
      fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7') + 'verifier_verify_adb_installs=0\n',
    );
    // An update: verify apps over USB back on, stay awake off.
    const after = read(A5);
    expect(flips(before, after, baseline).map(flipLine)).toEqual([
      'readiness changed: stay awake while charging went from 7 to 0; it fails the baseline now',
      'readiness changed: verify apps over USB went from 0 to 1; it fails the baseline now',
    ]);
    expect(flips(after, before, baseline).map((f) => f.passes)).toEqual([true, true]);
  });

  it('sees no change in the same reading, nor in a check one of the two did not read', () => {
    const values = read(A5);
    expect(flips(values, values, baseline)).toEqual([]);
    expect(flips({}, values, baseline)).toEqual([]);
    // The row gone is unread, not a change to a default.
    expect(flips(values, read(fixture('lineage18-sm-a520f-global.txt')), baseline)).toEqual([]);
  });

  it('drift: a first reading has no build or value drift but may be not ready; a new build and a flip are events; not ready is said once per stretch', () => {
    const NOW = 'google/husky/husky:16/CP1A.260305.018/14887507:user/release-keys';
    const EARLIER = NOW.replace(':16/CP1A.260305.018/14887507:', ':15/BP1A.250505.005/13277524:');
    const reading = (global: string) => parseReadiness(readinessSection({ lists: { global: { text: global } } }))!;
    const ready =
      fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7') + 'verifier_verify_adb_installs=0\n';
    const observe = (global: string, fingerprint?: string) => {
      const r = reading(global);
      return { values: valuesOf(r, baseline, 'samsung'), verdict: judge(r, baseline, 'samsung'), ...(fingerprint ? { fingerprint } : {}) };
    };
    const kinds = (events: Array<{ kind: string }>) => events.map((e) => e.kind);
    const first = drift(undefined, observe(A5, EARLIER), baseline);
    expect(kinds(first.events)).toEqual(['not_ready']);
    expect(first.seen.notReady).toBe(true);
    // Still not ready, one value fixed: a flip, no second warning.
    const second = drift(first.seen, observe(A5.replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7'), EARLIER), baseline);
    expect(kinds(second.events)).toEqual(['value']);
    // The OTA: a new build, and all fixed.
    const third = drift(second.seen, observe(ready, NOW), baseline);
    expect(kinds(third.events)).toEqual(['build', 'value']);
    expect(third.seen).toMatchObject({ notReady: false, fingerprint: NOW });
    // An inventory without readings keeps what was seen: a not-ready phone unread for a while is not not-ready anew.
    const unread = drift(first.seen, { values: {} }, baseline);
    expect(unread.seen.notReady).toBe(true);
    expect(kinds(drift(unread.seen, observe(A5, EARLIER), baseline).events)).toEqual([]);
    // A verdict that fails none, checks unread, ends the stretch of not ready (and starts none).
    const partly = drift(
      first.seen,
      observe(
        fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7') +
          'verifier_verify_adb_installs=0\nverifier_verify_adb_installs=0\n',
      ),
      baseline,
    );
    expect(partly.seen.notReady).toBe(false);
    expect(kinds(partly.events)).toEqual(['value']);
    expect(drift(third.seen, { values: {} }, baseline)).toEqual({ seen: third.seen, events: [] });
  });
});

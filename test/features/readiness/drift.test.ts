import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/config/readiness.js';
import { flipLine, flips } from '../../../src/features/readiness/drift.js';
import { valuesOf } from '../../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { fixture, readinessSection } from './section.js';

const baseline = parseReadinessChecks(['stayAwake', 'verifyAdbInstalls', 'wifi']);
const read = (global: string) => valuesOf(parseReadiness(readinessSection({ lists: { global: { text: global } } }))!, baseline, 'samsung');

describe('readiness drift', () => {
  it('names each value that changed between two readings of the recorded Galaxy A5, and whether it meets the baseline now', () => {
    const before = read(
      fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7') + 'verifier_verify_adb_installs=0\n',
    );
    // An update: verify apps over USB back to its default (the row gone), stay awake off.
    const after = read(fixture('lineage18-sm-a520f-global.txt'));
    expect(flips(before, after, baseline).map(flipLine)).toEqual([
      'readiness changed: stay awake while charging went from 7 to 0; it fails the baseline now',
      'readiness changed: verify apps over USB went from 0 to 1; it fails the baseline now',
    ]);
    expect(flips(after, before, baseline).map((f) => f.passes)).toEqual([true, true]);
  });

  it('sees no change in the same reading, nor in a check one of the two did not read', () => {
    const values = read(fixture('lineage18-sm-a520f-global.txt'));
    expect(flips(values, values, baseline)).toEqual([]);
    expect(flips({}, values, baseline)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { judge, valuesOf, verdictCell } from '../../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { fixture, readinessSection } from './section.js';

// `list`'s READY cell from readings of the recorded Galaxy A5 (fixtures/README.md).

const baseline = parseReadinessChecks(['stayAwake', 'verifyAdbInstalls', 'autoRotate']);

function cell(section: string): string | undefined {
  const reading = parseReadiness(section)!;
  return verdictCell(judge(reading, baseline, 'samsung'), Object.keys(valuesOf(reading, baseline, 'samsung')).length);
}

describe('verdictCell', () => {
  it('names the failed checks by their names in readiness.checks', () => {
    // The recording as it is: stay awake 0, verify apps over USB unset (1, Android's default).
    expect(
      cell(
        readinessSection({ lists: { global: { text: fixture('lineage18-sm-a520f-global.txt') }, system: { text: fixture('lineage18-sm-a520f-system.txt') } } }),
      ),
    ).toBe('not ready: stayAwake, verifyAdbInstalls');
  });

  it('ready when every check read passes', () => {
    const global =
      fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=3') + 'verifier_verify_adb_installs=0\n';
    expect(cell(readinessSection({ lists: { global: { text: global }, system: { text: fixture('lineage18-sm-a520f-system.txt') } } }))).toBe('ready');
  });

  it('nothing when the lists could not be read: unread is never ready', () => {
    expect(cell(readinessSection({}))).toBeUndefined();
  });
});

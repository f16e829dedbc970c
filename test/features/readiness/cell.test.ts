import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { judge, verdictCell } from '../../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { fixture, readinessSection } from './section.js';

// `list`'s READY cell from readings of the recorded Galaxy A5 (fixtures/README.md).

const baseline = parseReadinessChecks(['stayAwake', 'verifyAdbInstalls', 'autoRotate']);

function cell(section: string): string | undefined {
  const reading = parseReadiness(section)!;
  return verdictCell(judge(reading, baseline, 'samsung'));
}

describe('verdictCell', () => {
  it('names the failed checks by their names in readiness.checks', () => {
    // The recording with verify apps over USB on: stay awake 0 fails, and verify apps over USB.
    const global = fixture('lineage18-sm-a520f-global.txt') + 'verifier_verify_adb_installs=1\n';
    expect(cell(readinessSection({ lists: { global: { text: global }, system: { text: fixture('lineage18-sm-a520f-system.txt') } } }))).toBe(
      'not ready: stayAwake, verifyAdbInstalls',
    );
  });

  it('names the checks unread when none failed: a row printed twice is unread', () => {
    const global =
      fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=3') +
      'verifier_verify_adb_installs=0\nverifier_verify_adb_installs=0\n';
    expect(cell(readinessSection({ lists: { global: { text: global }, system: { text: fixture('lineage18-sm-a520f-system.txt') } } }))).toBe(
      'unread: verifyAdbInstalls',
    );
  });

  it('ready when every check read passes', () => {
    const global =
      fixture('lineage18-sm-a520f-global.txt').replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=3') + 'verifier_verify_adb_installs=0\n';
    expect(cell(readinessSection({ lists: { global: { text: global }, system: { text: fixture('lineage18-sm-a520f-system.txt') } } }))).toBe('ready');
  });

  it('unread when the lists could not be read: unread is never ready', () => {
    expect(cell(readinessSection({}))).toBe('unread: stayAwake, verifyAdbInstalls, autoRotate');
  });
});

describe('verdictCell past three checks', () => {
  it('names three and counts the rest, so that a phone that answered none is one short cell', () => {
    const all = parseReadinessChecks(['stayAwake', 'screenLock', 'windowAnimation', 'verifyAdbInstalls', 'autoRotate']);
    expect(verdictCell(judge(parseReadiness(readinessSection({}))!, all, 'samsung'))).toBe('unread: stayAwake, screenLock, windowAnimation and 2 more');
  });
});

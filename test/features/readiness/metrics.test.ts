import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { readinessGauges } from '../../../src/features/readiness/metrics.js';
import { judge } from '../../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { fixture, readinessSection } from './section.js';

describe('the readiness series', () => {
  it('count the phones failing each check of the baseline, one sample per check (a phone not read counts in none)', () => {
    const baseline = parseReadinessChecks(['stayAwake', 'wifi', 'autoRotate']);
    const lineage = parseReadiness(readinessSection({ lists: { global: { text: fixture('lineage18-sm-a520f-global.txt') } } }))!;
    const mi9t = parseReadiness(readinessSection({ lists: { global: { text: fixture('miui12-mi9t-global.txt') } } }))!;
    const verdicts = [judge(lineage, baseline, 'samsung'), judge(mi9t, baseline, 'Xiaomi'), undefined];
    const [failing, devices] = readinessGauges([...baseline.keys()], verdicts);
    expect(failing!.samples).toEqual([
      { labels: { check: 'stayAwake' }, value: 2 },
      { labels: { check: 'wifi' }, value: 1 },
      { labels: { check: 'autoRotate' }, value: 0 },
    ]);
    expect(devices!.samples).toEqual([
      { labels: { verdict: 'ready' }, value: 0 },
      { labels: { verdict: 'not_ready' }, value: 2 },
      { labels: { verdict: 'unread' }, value: 0 },
    ]);
  });

  it('count a phone whose lists could not be read (a TV stick without `settings list`: rows of neither) as unread: never ready, never failing', () => {
    const baseline = parseReadinessChecks(['stayAwake', 'screenLock']);
    // Fire OS 5 (Android 5.1) has no `settings list`: SettingsCmd prints "Invalid command: list" and its usage on stderr and exits 0,
    // so the section holds the namespace's lines and no row; its keyguard answers.
    const stick = parseReadiness(readinessSection({ lists: { global: { text: '' } }, window: fixture('dumpsys-window-policy-keyguard.txt') }))!;
    const [failing, devices] = readinessGauges([...baseline.keys()], [judge(stick, baseline, 'Amazon')]);
    expect(failing!.samples.map((s) => s.value)).toEqual([0, 0]);
    expect(devices!.samples).toEqual([
      { labels: { verdict: 'ready' }, value: 0 },
      { labels: { verdict: 'not_ready' }, value: 0 },
      { labels: { verdict: 'unread' }, value: 1 },
    ]);
  });
});

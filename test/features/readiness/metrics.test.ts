import { describe, expect, it } from 'vitest';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { readinessMetrics } from '../../../src/features/readiness/metrics.js';
import { judge } from '../../../src/features/readiness/verdict.js';
import { parseReadiness } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { fixture, readinessSection } from './section.js';

const NONE = { changes: new Map<string, number>(), notReady: new Map<string, number>(), builds: 0 };

describe('the readiness series', () => {
  it('count the phones failing each check of the baseline, one sample per check (a phone not read counts in none)', () => {
    const baseline = parseReadinessChecks(['stayAwake', 'wifi', 'autoRotate']);
    const lineage = parseReadiness(readinessSection({ lists: { global: { text: fixture('lineage18-sm-a520f-global.txt') } } }))!;
    const mi9t = parseReadiness(readinessSection({ lists: { global: { text: fixture('miui12-mi9t-global.txt') } } }))!;
    const verdicts = [judge(lineage, baseline, 'samsung'), judge(mi9t, baseline, 'Xiaomi'), undefined];
    const [failing, devices] = readinessMetrics([...baseline.keys()], verdicts, NONE);
    expect(failing!.samples).toEqual([
      { labels: { check: 'stayAwake' }, value: 2 },
      { labels: { check: 'wifi' }, value: 1 },
      { labels: { check: 'autoRotate' }, value: 0 },
    ]);
    expect(devices!.samples).toEqual([
      { labels: { verdict: 'ready' }, value: 0 },
      { labels: { verdict: 'not_ready' }, value: 2 },
    ]);
  });
});

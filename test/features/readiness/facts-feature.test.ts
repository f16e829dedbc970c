// The readiness feature on a phone whose source publishes facts
// (src/devices/readiness-facts.ts), as the iOS source does after each lockdown
// session: the message, the READY cell, /metrics and drift, by the same paths
// as a shell-read phone's. The facts are those src/platforms/ios/readiness.ts
// makes of the recorded lockdown answers (test/platforms/ios/fixtures/readiness/).
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { READINESS_FACTS } from '../../../src/devices/readiness-facts.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { readinessFeature } from '../../../src/features/readiness/feature.js';
import { READINESS } from '../../../src/devices/verdicts.js';
import { featureContext, featureSeries } from '../../support/feature-bed.js';
import { captureLogger } from '../../log/capture.js';

const UDID = '00008120-001A2C3E0E83C01E';
const KEY = `ios/${UDID}`;

function bench() {
  const registry = new DeviceRegistry();
  const log = captureLogger('info');
  const feature = readinessFeature(
    featureContext({ registry: registry, set: { 'readiness.checks': ['paired', 'developerMode', 'passcode', 'osVersion'] }, logger: log.logger }),
  );
  registry.sync('ios', new Map([[UDID, 'attached']]));
  const info = { udid: UDID, serialNumber: UDID, state: 'paired', status: 'AVAILABLE', platformName: 'IOS', brandName: 'Apple' } as DeviceInfo;
  let now = 0;
  const answer = (facts: Record<string, string>): void => {
    now += 60_000;
    registry.facet(READINESS_FACTS).set(KEY, facts);
    registry.readings.answered(KEY, info, now, now);
    feature.answered!(registry.get(KEY)!);
  };
  const counter = (name: string, labels: Record<string, string>): number | undefined =>
    featureSeries(feature, [UDID])
      .find((m) => m.name === name)
      ?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))?.value;
  return { registry, feature, info, answer, counter, messages: () => log.lines().map((l) => String(l.msg)) };
}

describe('readiness on a source that publishes facts', () => {
  it('Developer Mode turned off: one flip line, one not-ready warning, the message, READY and /metrics; never one line per report', () => {
    const { registry, feature, info, answer, counter, messages } = bench();
    // Found locked behind a passcode: every check of the four read.
    const on = { paired: 'true', developerMode: 'true', osVersion: '17.4.1', passcode: 'true' };
    answer(on);
    answer(on);
    expect(messages()).toEqual([]);
    expect(feature.cells!(info, registry.get(KEY))).toEqual({ readiness: 'ready' });
    const off = { ...on, developerMode: 'false' };
    for (let i = 0; i < 5; i++) answer(off);
    expect(messages()).toEqual([
      `device ${UDID}: readiness changed: Developer Mode went from true to false; it fails the baseline now`,
      `device ${UDID}: not ready for automation (1 of the lab's checks failed): Developer Mode is off (DeveloperModeStatus), expected on: ` +
        'Settings > Privacy & Security > Developer Mode on, restart when asked, then confirm "Turn On" after the restart (a person must do it: the phone asks for its passcode)',
    ]);
    expect(registry.timeline.verdictBy(UDID, READINESS)?.words).toContain('Developer Mode is off (DeveloperModeStatus)');
    expect(feature.cells!(info, registry.get(KEY))).toEqual({ readiness: 'not ready: developerMode' });
    expect(counter('device_agent_readiness_failing_devices', { check: 'developerMode' })).toBe(1);
    expect(counter('device_agent_readiness_devices', { verdict: 'not_ready' })).toBe(1);
    expect(counter('device_agent_readiness_changes_total', { check: 'developerMode' })).toBe(1);
    expect(counter('device_agent_readiness_not_ready_total', { check: 'developerMode' })).toBe(1);
  });

  it("a record without facts (nothing read yet) is not judged, and list's READY says it is not read yet, apart from readiness off (issue 61)", () => {
    const { registry, feature, info } = bench();
    expect(registry.timeline.verdictBy(UDID, READINESS)).toBeUndefined();
    expect(feature.cells!(info, registry.get(KEY))).toEqual({ readiness: 'not read yet' });
  });
});

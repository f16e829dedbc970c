import { describe, expect, it } from 'vitest';
import type { DeviceInfo, Support } from '../../../src/cloud/types.js';
import { parseReadinessChecks } from '../../../src/features/readiness/settings.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { readinessFeature } from '../../../src/features/readiness/feature.js';
import { featureContext } from '../../support/feature-bed.js';
import { failsAppium } from '../../../src/features/readiness/support.js';
import { annotateAll } from '../../../src/devices/feature.js';
import { READINESS } from '../../../src/devices/verdicts.js';
import { judge } from '../../../src/features/readiness/verdict.js';
import { parseReadiness, type ReadinessReading } from '../../../src/platforms/android/inventory/parsers/readiness.js';
import { registryTierStore } from '../../../src/platforms/android/inventory/tier-store.js';
import { decorate } from '../../../src/report/decorate.js';
import { fixture, readinessSection } from './section.js';

// The `support` flags a readiness check decides, per phone: appiumDisabled,
// from usbDebugging, xiaomiInput and xiaomiInstall (src/features/readiness/
// support.ts says why, and why no check decides the other four). On the
// recorded Mi 9T and Galaxy A5 lists (fixtures/README.md); Xiaomi's
// properties are the reconstruction that README names.

const HOST: Support = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};
const BASELINE = parseReadinessChecks(['stayAwake', 'verifyAdbInstalls', 'usbDebugging', 'xiaomiInput', 'xiaomiInstall']);

function reading(text: string): ReadinessReading {
  const parsed = parseReadiness(text);
  if (!parsed) throw new Error('no reading');
  return parsed;
}

const mi9t = (props: Record<string, string>): string => readinessSection({ lists: { global: { text: fixture('miui12-mi9t-global.txt') } }, props });

describe('failsAppium: the flag a phone’s verdict decides', () => {
  it('a Xiaomi refusing injected input or installs over USB has Appium disabled; the other flags stay the host’s', () => {
    for (const props of [
      { 'persist.security.adbinput': '0', 'persist.security.adbinstall': '1' },
      { 'persist.security.adbinput': '1', 'persist.security.adbinstall': '0' },
    ]) {
      const verdict = judge(reading(mi9t(props)), BASELINE, 'Xiaomi');
      expect(failsAppium(verdict)).toBe(true);
    }
  });

  it('a phone not ready on checks Appium does not need keeps the host’s flags; so does a ready one', () => {
    // The Galaxy A5: stay awake off, USB debugging on, no verify apps over USB row (its reader's default, 1: on).
    const a5 = judge(reading(readinessSection({ lists: { global: { text: fixture('lineage18-sm-a520f-global.txt') } } })), BASELINE, 'samsung');
    expect(a5.failed.map((f) => f.check.id)).toEqual(['stayAwake', 'verifyAdbInstalls']);
    expect(failsAppium(a5)).toBe(false);
    // The Mi 9T with both toggles on: its stay awake is off, nothing Appium needs.
    const toggles = judge(reading(mi9t({ 'persist.security.adbinput': '1', 'persist.security.adbinstall': '1' })), BASELINE, 'Xiaomi');
    expect(toggles.failed.map((f) => f.check.id)).toEqual(['stayAwake']);
    expect(failsAppium(toggles)).toBe(false);
    const ready = judge(
      reading(mi9t({ 'persist.security.adbinput': '1', 'persist.security.adbinstall': '1' })),
      parseReadinessChecks(['usbDebugging']),
      'Xiaomi',
    );
    expect(ready.ready).toBe(true);
    expect(failsAppium(ready)).toBe(false);
    expect(failsAppium(undefined)).toBe(false);
  });

  it('a flag the lab sets on the host stays set on every phone: decorate adds the phone’s own, never clears the host’s', () => {
    const settings = { hiddenDevices: [], addedToCloud: true, support: { ...HOST, setTimeZoneDisabled: true } };
    const phone = { udid: 'X', support: { ...HOST, appiumDisabled: true } } as DeviceInfo;
    expect(decorate(phone, settings).support).toEqual({ ...HOST, appiumDisabled: true, setTimeZoneDisabled: true });
    expect(decorate({ udid: 'Y' } as DeviceInfo, settings).support).toEqual({ ...HOST, setTimeZoneDisabled: true });
  });
});

describe('the readiness feature sets it on the report', () => {
  it('a listed Xiaomi whose input toggle is off is reported with appiumDisabled; a phone it has no reading of is left as it is', () => {
    const registry = new DeviceRegistry();
    const feature = readinessFeature(featureContext({ registry: registry, set: { 'readiness.checks': [...BASELINE.keys()] } }));
    const serial = 'f1a2b3c4';
    registry.sync('android', new Map([[serial, 'device']]));
    const info = {
      udid: serial,
      serialNumber: serial,
      state: 'device',
      status: 'AVAILABLE',
      platformName: 'Android',
      brandName: 'Xiaomi',
      support: HOST,
    } as DeviceInfo;
    registryTierStore(registry).set(serial, {
      sections: new Map([['readiness_global', mi9t({ 'persist.security.adbinput': '0', 'persist.security.adbinstall': '1' })]]),
      props: {},
      slowReadAtMs: 0,
      slowStale: false,
    });
    registry.readings.answered(`android/${serial}`, info, 0, 0);
    feature.answered!(registry.get(`android/${serial}`)!);
    const other = { ...info, udid: 'elsewhere', serialNumber: 'elsewhere' };
    const reported = annotateAll([feature], [info, other], new Map(), registry.timeline);
    expect(reported[0]!.support).toEqual({ ...HOST, appiumDisabled: true });
    expect(registry.timeline.verdictBy(serial, READINESS)?.words).toMatch(/^not ready for automation \(2 of the lab's checks failed\)/);
    expect(reported[1]).toEqual(other);
  });
});

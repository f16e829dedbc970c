import { describe, expect, it } from 'vitest';
import { annotateAll } from '../../../src/devices/feature.js';
import { ANDROID_READINESS } from '../../../src/platforms/android/readiness.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { OFF_SOURCE } from '../../../src/devices/off-source.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { readinessFeature } from '../../../src/features/readiness/feature.js';
import { READINESS } from '../../../src/devices/verdicts.js';
import { featureContext, featureSeries } from '../../support/feature-bed.js';
import { offAdbVerdict } from '../../../src/features/readiness/off-adb.js';
import { offSourceOf } from '../../../src/features/usb/off-adb.js';
import { platformNames } from '../../../src/agent/platforms.js';

// Readiness meets the USB layer: a phone adb no longer lists while sysfs
// shows its serial on a port, as the USB layer publishes it (the OFF_SOURCE
// facet), is judged not ready on usbDebugging: its message names the cause
// and the fixes, READY and /metrics say so. The USB layer's side (what it
// publishes) is in test/features/usb/off-source.test.ts.

const UDID = 'USBOFF01';
const NOTHING: DeviceInfo['support'] = {
  appiumDisabled: false,
  networkTrafficCapturingDisabled: false,
  unlockPasscodeDisabled: false,
  setTimeZoneDisabled: false,
  networkPayloadCaptureDisabled: false,
};

/** The phone as the USB layer adds it back to the report: its last inventory, UNAVAILABLE, with the USB layer's own message. */
const OFF: DeviceInfo = {
  udid: UDID,
  serialNumber: UDID,
  state: 'no device',
  status: 'UNAVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  modelName: 'Pixel 8 Pro',
  support: NOTHING,
  message: 'on USB port 1-1.3 (the kernel enumerated it) but adb does not list it: ...',
};

/** What the USB layer publishes of it on port 1-1.3, in its platform's words; and of an iPhone on a port, off usbmuxd. */
const ANDROID_OFF = offSourceOf(OFF, new Map([[UDID, ['1-1.3']]]), platformNames)!;
const IPHONE_OFF = offSourceOf({ ...OFF, platformName: 'IOS', isAndroid: false, isIos: true }, new Map([[UDID, ['1-1.3']]]), platformNames)!;

function bench(checks = ['stayAwake', 'usbDebugging']) {
  const registry = new DeviceRegistry();
  const feature = readinessFeature(featureContext({ registry: registry, set: { 'readiness.checks': checks } }));
  const off = registry.facet(OFF_SOURCE);
  const failing = (check: string): number | undefined =>
    featureSeries(feature, [UDID])
      .find((m) => m.name === 'device_agent_readiness_failing_devices')
      ?.samples.find((s) => s.labels?.check === check)?.value;
  const notReady = (): number | undefined =>
    featureSeries(feature, [UDID])
      .find((m) => m.name === 'device_agent_readiness_devices')
      ?.samples.find((s) => s.labels?.verdict === 'not_ready')?.value;
  return { feature, off, failing, notReady, registry };
}

describe('readiness on a phone on USB and off adb', () => {
  it('is not ready on usbDebugging: the message names the cause and each fix, READY and /metrics say so, Appium is off for it', () => {
    const { feature, off, failing, notReady, registry } = bench();
    off.set(UDID, ANDROID_OFF);
    const [device] = annotateAll([feature], [OFF], new Map(), registry.timeline);
    expect(device!.message).toBe(
      'not ready for automation: USB debugging is unreachable (usbDebugging): on USB port 1-1.3 (the kernel enumerated it) but adb does not list it. ' +
        'USB debugging turned off (an OS update does it): Developer options > USB debugging on; ' +
        'charge-only USB mode: set the USB mode to File transfer, or pick it in the "USB charging this device" notification; ' +
        'not unplugged',
    );
    expect(device!.status).toBe('UNAVAILABLE');
    expect(device!.support?.appiumDisabled).toBe(true);
    // No record: adb does not list it, so the cell comes from the published fact.
    expect(feature.cells!(OFF, undefined)).toEqual({ readiness: 'not ready: usbDebugging' });
    expect(failing('usbDebugging')).toBe(1);
    expect(failing('stayAwake')).toBe(0);
    expect(notReady()).toBe(1);
  });

  it('back on adb (the fact dropped), it is neither judged nor counted from it', () => {
    const { feature, off, failing, notReady } = bench();
    off.set(UDID, ANDROID_OFF);
    off.delete(UDID);
    expect(feature.annotate!([OFF])[0]).toEqual(OFF);
    expect(feature.cells!(OFF, undefined)).toEqual({});
    expect(failing('usbDebugging')).toBe(0);
    expect(notReady()).toBe(0);
  });

  it('listed by adb again (its debugging back on), its off-adb verdict ends at once, before any report or reading: READY says not read yet', () => {
    const { feature, off, failing, notReady, registry } = bench();
    off.set(UDID, ANDROID_OFF);
    annotateAll([feature], [OFF], new Map(), registry.timeline);
    expect(registry.timeline.verdictBy(UDID, READINESS)?.out).toEqual({ state: 'needs_person', layer: 'readiness' });
    // adb lists it again; no report runs (the cloud's backoff may hold it), no inventory answers.
    const { changed } = registry.sync('android', new Map([[UDID, 'device']]));
    feature.changed!(changed.map((key) => ({ key, serial: UDID, to: 'device' })));
    expect(registry.timeline.verdictBy(UDID, READINESS)).toBeUndefined();
    expect(feature.cells!(OFF, registry.find('android', UDID))).toEqual({ readiness: 'not read yet' });
    expect(failing('usbDebugging')).toBe(0);
    expect(notReady()).toBe(0);
  });

  it('a phone whose udid is not its adb serial, back on a new record (replugged), ends it too: by what the last answer at that key said', () => {
    const { feature, off, registry } = bench();
    const serial = 'R58N1234';
    // Listed and answered with its udid, then gone from adb (its record went), off adb on its port.
    let { changed } = registry.sync('android', new Map([[serial, 'device']]));
    registry.readings.answered(changed[0]!, OFF, 0, 0);
    registry.sync('android', new Map());
    off.set(UDID, ANDROID_OFF);
    annotateAll([feature], [OFF], new Map(), registry.timeline);
    expect(registry.timeline.verdictBy(UDID, READINESS)).toBeDefined();
    ({ changed } = registry.sync('android', new Map([[serial, 'device']])));
    feature.changed!(changed.map((key) => ({ key, serial, to: 'device' })));
    expect(registry.timeline.verdictBy(UDID, READINESS)).toBeUndefined();
  });

  it("keeps the USB layer's word where the baseline leaves usbDebugging out, and for an iPhone off usbmuxd (no iPhone checks yet)", () => {
    const without = bench(['stayAwake']);
    without.off.set(UDID, ANDROID_OFF);
    expect(without.feature.annotate!([OFF])[0]).toEqual(OFF);
    expect(without.feature.cells!(OFF, undefined)).toEqual({});
    expect(offAdbVerdict({ ...IPHONE_OFF, port: '2-3' }, new Map([['usbDebugging', undefined]]), ANDROID_READINESS.platformName)).toBeUndefined();
  });

  it("keeps the USB layer's word where the kernel shows more than the port: a phone in its bootloader, or one offering adb's interface (its debugging is on)", () => {
    for (const mode of ['bootloader', 'offers-source'] as const) {
      const { feature, off, failing, notReady } = bench();
      off.set(UDID, { ...ANDROID_OFF, mode });
      expect(feature.annotate!([OFF])[0]).toEqual(OFF);
      expect(feature.cells!(OFF, undefined)).toEqual({});
      expect(failing('usbDebugging')).toBe(0);
      expect(notReady()).toBe(0);
    }
  });
});

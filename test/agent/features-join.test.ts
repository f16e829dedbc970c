import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFeatures } from '../../src/agent/features.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { annotateAll, cellsOf, oweAll } from '../../src/devices/feature.js';
import { kindsOf } from '../../src/devices/presence.js';
import { OFF_SOURCE } from '../../src/devices/off-source.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import type { DeviceSnapshot } from '../../src/devices/snapshot.js';
import { NOTHING_DISABLED } from '../platforms/android/inventory/support.js';
import { systemClock } from '../../src/util/clock.js';
import { captureLogger } from '../log/capture.js';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';

// The join as the features are registered (src/agent/features.ts): the USB
// layer owes in the presence ledger a phone adb stopped listing while sysfs
// (a tree built here) shows its serial on the port adb placed it on (its usb
// path, read with its note while it was listed), and publishes the fact;
// readiness judges that phone not ready on usbDebugging, registered before or
// after it. Neither imports the other.

const PHONE: DeviceInfo = {
  udid: 'USBOFF01',
  serialNumber: 'USBOFF01',
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  isAndroid: true,
  isIos: false,
  modelName: 'Pixel 8 Pro',
  support: NOTHING_DISABLED,
};

function bed(order: (features: ReturnType<typeof buildFeatures>) => ReturnType<typeof buildFeatures> = (f) => f) {
  const dir = mkdtempSync(join(tmpdir(), 'features-join-'));
  const sysfs = join(dir, 'sysfs');
  const port = join(sysfs, '1-1.3');
  mkdirSync(port, { recursive: true });
  writeFileSync(join(port, 'serial'), 'USBOFF01\n');
  const registry = new DeviceRegistry();
  const features = order(
    buildFeatures(
      featureContext<AndroidControl>({
        set: { 'usb.kernelLog': '', 'usb.sysfsRoot': sysfs, 'readiness.checks': ['stayAwake', 'usbDebugging'] },
        registry,
        stateDir: dir,
        logger: captureLogger().logger,
        clock: systemClock,
      }),
    ),
  );
  // One report's pass as the reporter runs it: the present devices are what their source listed and read (the readings
  // keep their last inventories), the features owe, the presence ledger is asked once, then the annotate pass.
  const report = (present: DeviceInfo[]): DeviceInfo[] => {
    registry.sync('android', new Map(present.map((d) => [d.serialNumber, 'device'])));
    for (const d of present) registry.readings.answered(`android/${d.serialNumber}`, d, 0, 0);
    // Each listed phone's note, as the report asks it: adb has it on 1-1.3.
    for (const d of present) {
      const record = {
        key: `android/${d.serialNumber}`,
        platform: 'android',
        serial: d.serialNumber,
        udid: d.udid,
        state: 'device',
        usb: { usb: '1-1.3' },
      } as unknown as DeviceSnapshot;
      for (const f of features) f.notes?.(record, [record]);
    }
    oweAll(features, { absentIsGone: () => true, listed: (udid) => present.some((d) => d.udid === udid) });
    const { carried } = registry.presence.report(present, 0, (d) => registry.readings.inventoryOf(d.udid, d.key));
    return annotateAll(features, [...present, ...carried.map((c) => c.info)], kindsOf(carried), registry.timeline);
  };
  return { registry, features, report, unplug: () => rmSync(port, { recursive: true }) };
}

/** A phone adb stops listing while it stays on its port, through the features in `order`. */
function offAdbJoin(order?: (features: ReturnType<typeof buildFeatures>) => ReturnType<typeof buildFeatures>) {
  const { registry, features, report, unplug } = bed(order);
  report([PHONE]);
  // adb lists it no more.
  const [off] = report([]);
  expect(off).toMatchObject({ udid: 'USBOFF01', status: 'UNAVAILABLE', state: 'no device', support: { appiumDisabled: true } });
  expect(off!.message).toMatch(/^not ready for automation: USB debugging is unreachable \(usbDebugging\): on USB port 1-1\.3 .* not unplugged$/);
  expect(cellsOf(features, off!, undefined)).toMatchObject({ readiness: 'not ready: usbDebugging', usbPort: '1-1.3' });
  expect(registry.facet(OFF_SOURCE).get('USBOFF01')).toMatchObject({ port: '1-1.3', source: 'adb', platformName: 'ANDROID' });
  // Taken off the port: no longer added, no longer published.
  unplug();
  expect(report([])).toEqual([]);
  expect(registry.facet(OFF_SOURCE).entries()).toEqual([]);
}

describe('the USB layer and readiness, as registered', () => {
  it('a phone off adb while on its port: UNAVAILABLE, not ready on usbDebugging with the cause, READY says so; off the port, the fact is dropped', () => {
    offAdbJoin();
  });

  it('the same registered the other way round: the USB layer publishes the phones off adb before any annotate pass, so the order means nothing', () => {
    offAdbJoin((features) => [...features].reverse());
  });
});

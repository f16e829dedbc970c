import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LongDevice } from '../../../src/platforms/android/adb/devices-long.js';
import { readUsbControllers, usbItems } from '../../../src/features/usb/controllers.js';

/**
 * A sysfs tree as Linux lays it out: /sys/bus/usb/devices holds links into
 * /sys/devices/pci0000:00/<controller>/usbN/..., one per root hub, device
 * ("1-1.4") and interface ("1-1.4:1.0").
 */
function sysfs(layout: Record<string, { buses: number[]; devices: string[] }>): string {
  const root = mkdtempSync(join(tmpdir(), 'da-sysfs-'));
  const list = join(root, 'bus/usb/devices');
  mkdirSync(list, { recursive: true });
  for (const [controller, { buses, devices }] of Object.entries(layout)) {
    for (const bus of buses) {
      const hub = join(root, 'devices/pci0000:00', controller, `usb${bus}`);
      mkdirSync(hub, { recursive: true });
      symlinkSync(`../../../devices/pci0000:00/${controller}/usb${bus}`, join(list, `usb${bus}`));
      for (const d of devices.filter((name) => name.startsWith(`${bus}-`))) {
        mkdirSync(join(hub, d), { recursive: true });
        symlinkSync(`../../../devices/pci0000:00/${controller}/usb${bus}/${d}`, join(list, d));
        symlinkSync(`../../../devices/pci0000:00/${controller}/usb${bus}/${d}`, join(list, `${d}:1.0`));
      }
    }
  }
  return list;
}

const phone = (serial: string, usb?: string): LongDevice => ({ serial, state: 'device', usb, transportId: '1' });

describe('readUsbControllers', () => {
  it('counts devices per controller over both of its buses, interfaces and root hubs left out', () => {
    const hubsAndPhones = ['1-1', ...Array.from({ length: 7 }, (_, i) => `1-1.${i + 1}`), '2-1', '2-1.1', '2-1.2'];
    const list = sysfs({ '0000:00:14.0': { buses: [1, 2], devices: hubsAndPhones }, '0000:03:00.0': { buses: [3, 4], devices: ['3-2'] } });
    expect(readUsbControllers(list)).toEqual([
      { controller: '0000:00:14.0', buses: [1, 2], devices: 11 },
      { controller: '0000:03:00.0', buses: [3, 4], devices: 1 },
    ]);
  });

  it('is undefined where there is no sysfs', () => {
    expect(readUsbControllers('/nonexistent/sys/bus/usb/devices')).toBeUndefined();
  });
});

describe('usbItems', () => {
  it('one ok line per controller with adb devices, hubs counted', () => {
    const items = usbItems(
      [phone('A', '1-1.1'), phone('B', '2-1.1'), phone('C', '3-2'), phone('TCP')],
      [
        { controller: '0000:00:14.0', buses: [1, 2], devices: 11 },
        { controller: '0000:03:00.0', buses: [3, 4], devices: 1 },
        { controller: '0000:05:00.0', buses: [5, 6], devices: 4 },
      ],
    );
    expect(items).toEqual([
      { status: 'ok', finding: 'USB controller 0000:00:14.0 (bus 1, 2): 11 USB devices, hubs included, 2 of them adb devices' },
      { status: 'ok', finding: 'USB controller 0000:03:00.0 (bus 3, 4): 1 adb devices' },
    ]);
  });

  it('warns near the usual xHCI limit of 32, and says what to do', () => {
    const phones = Array.from({ length: 26 }, (_, i) => phone(`P${i}`, `1-1.${i}`));
    const [item] = usbItems(phones, [{ controller: '0000:00:14.0', buses: [1, 2], devices: 30 }]);
    expect(item!.status).toBe('warn');
    expect(item!.finding).toMatch(/30 USB devices, hubs included, 26 of them adb devices; many xHCI controllers take no more than 32/);
    expect(item!.advice).toMatch(/spread the hubs/);
    expect(usbItems(phones, [{ controller: 'x', buses: [1], devices: 27 }])[0]!.status).toBe('ok');
  });

  it('without sysfs, counts adb devices per bus from their usb paths; macOS paths and TCP devices count nowhere', () => {
    const phones = [...Array.from({ length: 28 }, (_, i) => phone(`P${i}`, `1-2.${i}`)), phone('M', '1114112X'), phone('T')];
    const items = usbItems(phones, undefined);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'warn', finding: expect.stringMatching(/^USB controller bus 1 \(bus 1\): 28 adb devices;/) });
  });

  it('phones sysfs shows on a port that adb does not list there (an iPhone, debugging off) load their controller too, said as phones', () => {
    const items = usbItems([phone('A', '1-1.1'), phone('T')], [{ controller: '0000:00:14.0', buses: [1], devices: 5 }], ['1-1.1', '1-1.2', '1-1.3']);
    expect(items).toEqual([{ status: 'ok', finding: 'USB controller 0000:00:14.0 (bus 1): 5 USB devices, hubs included, 3 of them phones' }]);
    // A controller with phones only sysfs knows of gets its line too.
    expect(usbItems([], [{ controller: '0000:03:00.0', buses: [3], devices: 2 }], ['3-1', '3-2'])).toEqual([
      { status: 'ok', finding: 'USB controller 0000:03:00.0 (bus 3): 2 phones' },
    ]);
  });
});

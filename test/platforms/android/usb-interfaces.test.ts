import { describe, expect, it } from 'vitest';
import { offAdbByInterfaces } from '../../../src/platforms/android/usb-interfaces.js';
import type { UsbInterface } from '../../../src/platforms/source.js';

// The interfaces real phones offer, as `lsusb -v` printed them in public
// threads (bInterfaceClass, SubClass, Protocol, as sysfs gives them: two hex
// digits each):
// - a Pixel 3 XL with USB debugging on, in "No data transfer" mode: one
//   interface, 255/66/1 "ADB Interface" (rom1v/usbaudio#3);
// - a Xiaomi (SDM439) in MTP mode with debugging on: #0 "MTP" ff/ff/00,
//   #1 "ADB Interface" ff/42/01 (protobom/protobom#351);
// - a phone in fastboot: ff/42/03 (Linaro test-definitions'
//   automated/android/boottest/debug-fastboot.sh reads these sysfs files for
//   it; systemd/systemd#36939 matches "ff4203").

const iface = (c: string, s: string, p: string): UsbInterface => ({ class: c, subclass: s, protocol: p });
const PIXEL_3_XL_NO_DATA = [iface('ff', '42', '01')];
const XIAOMI_MTP_ADB = [iface('ff', 'ff', '00'), iface('ff', '42', '01')];
const FASTBOOT = [iface('ff', '42', '03')];
const XIAOMI_MTP_ONLY = [iface('ff', 'ff', '00')];

describe('offAdbByInterfaces: what the interfaces on its port say of a phone adb does not list', () => {
  it("a phone offering adb's interface has USB debugging on: another adb server holds it", () => {
    for (const interfaces of [PIXEL_3_XL_NO_DATA, XIAOMI_MTP_ADB]) {
      const said = offAdbByInterfaces(interfaces);
      expect(said?.mode).toBe('offers-source');
      expect(said?.causes).toMatch(
        /^its USB debugging is on \(it offers adb's USB interface, ff\/42\/01\) but this adb server has not taken it: another adb server holds it/,
      );
    }
  });

  it('a phone offering fastboot is in its bootloader, not in Android', () => {
    expect(offAdbByInterfaces(FASTBOOT)).toEqual({
      mode: 'bootloader',
      causes:
        "it is in its bootloader, not in Android (it offers fastboot's USB interface, ff/42/03): a failed update or flash, or a boot loop; `fastboot reboot` it, or flash it again",
    });
    // Upper-case hex reads the same.
    expect(offAdbByInterfaces([iface('FF', '42', '03')])?.mode).toBe('bootloader');
  });

  it('says nothing more of a phone offering no adb interface (debugging off: MTP alone) or of one whose interfaces could not be read', () => {
    expect(offAdbByInterfaces(XIAOMI_MTP_ONLY)).toBeUndefined();
    expect(offAdbByInterfaces([])).toBeUndefined();
    // Another vendor protocol under ff/42 is neither.
    expect(offAdbByInterfaces([iface('ff', '42', '02')])).toBeUndefined();
  });
});

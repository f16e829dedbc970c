// What the interfaces an Android phone offers on its port say when adb does not list it: adb's interface is ff/42/01,
// fastboot's ff/42/03 (as AOSP's adb and fastboot match them, and systemd's udev rules, systemd/systemd#36939). Pure.
import type { OffListMode } from '../../devices/off-source.js';
import type { UsbInterface } from '../source.js';

const is = (i: UsbInterface, protocol: string) => i.class.toLowerCase() === 'ff' && i.subclass.toLowerCase() === '42' && i.protocol.toLowerCase() === protocol;

/** The mode the interfaces show, with its words; undefined when they show neither (no adb interface: debugging off, or nothing read). */
export function offAdbByInterfaces(interfaces: readonly UsbInterface[]): { mode: OffListMode; causes: string } | undefined {
  if (interfaces.some((i) => is(i, '03')))
    return {
      mode: 'bootloader',
      causes:
        "it is in its bootloader, not in Android (it offers fastboot's USB interface, ff/42/03): a failed update or flash, or a boot loop; " +
        '`fastboot reboot` it, or flash it again',
    };
  if (interfaces.some((i) => is(i, '01')))
    return {
      mode: 'offers-source',
      causes:
        "its USB debugging is on (it offers adb's USB interface, ff/42/01) but this adb server has not taken it: another adb server holds it " +
        "(another user's, a container's, an IDE's): stop that server (`adb kill-server` where it runs) and replug the phone",
    };
  return undefined;
}

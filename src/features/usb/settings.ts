// The USB layer's settings: where it reads the kernel's USB messages and the
// USB devices' tree. Composed into the one schema by src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const usbSettings = {
  'usb.kernelLog': {
    type: 'string',
    default: '/dev/kmsg',
    format: 'path, or `""` for off',
    help:
      "the kernel's log the USB layer follows for its messages about ports, hubs and controllers ([which](usb-kernel-messages.md)): `/dev/kmsg`, or a recorded file of `/dev/kmsg` records to replay an incident (a dmesg or journal capture reads too); " +
      '`""` turns the reading off. A path that is no kernel log (a directory, `/dev/zero`, a binary file) is said once and not read. Where it cannot be read (`kernel.dmesg_restrict=1` without `CAP_SYSLOG`, a container without `/dev/kmsg`) the agent says so once and works as without it; ' +
      "`doctor` says whether the agent can read it, and names the worst ports of the daemon's record, which `list` shows in its USB column",
  },
  'usb.sysfsRoot': {
    type: 'string',
    default: '/sys/bus/usb/devices',
    format: 'path, or `""` for off',
    help:
      "where the kernel lists the USB devices (`/sys/bus/usb/devices`, or a copied tree to replay an incident): the controller of each bus, for the USB layer's verdicts, the port of each iPhone (usbmuxd's location, by `busnum` and `devnum`), and the serial on each port: " +
      'a phone adb (or usbmuxd) stops listing while the port its source last placed it on shows the serial it had there is reported UNAVAILABLE with why (USB debugging off, charge-only mode; in its bootloader, or held by another adb server, when the interfaces it offers on the port say so; usbmuxd did not take an iPhone), not UNPLUGGED; ' +
      '`list`\'s USB column and `doctor`\'s controller load and autosuspend lines read it too. `""` turns them off',
  },
} as const satisfies Record<string, Field>;

// The USB layer as the report sees it: a device's message gets the
// evidence when the kernel's word blames its port, its hub, its controller
// or the phone itself; a phone gone from its source's list while the
// kernel still has it on a port is reported as such, not UNPLUGGED. Built for every command, started only by the daemon
// (the kernel log is followed only while it runs); without a context (tests
// that build the features alone) it says nothing.
import type { DeviceFeature } from '../../devices/feature.js';
import { UsbLayer, type UsbContext } from './layer.js';

/** context.layer: the layer itself, when the wiring keeps it too (recovery reads its evidence); else one of its own. */
export function usbFeature(context: (UsbContext & { layer?: UsbLayer }) | undefined): DeviceFeature {
  const layer = context && (context.layer ?? new UsbLayer(context));
  return {
    name: 'usb',
    start: () => layer?.start(),
    stop: () => layer?.stop(),
    notes: (device) => [layer?.noteFor(device)],
    owe: (listing) => layer?.oweOnUsb(listing),
    // The phones off adb the ledger carried for it are in the list by then: it publishes them and says so once.
    annotate: (devices, carried) => (layer ? layer.withPhonesOnUsb(devices, carried ?? new Map()) : [...devices]),
    // Inside list's USB column: the port and what the kernel said of it, where the layer knows the port.
    columns: () => (layer?.on ? [{ key: 'usbPort', title: 'USB PORT', inside: 'USB' }] : []),
    cells: (info, device): Record<string, string> => {
      const cell = layer?.portCell(info, device);
      return cell === undefined ? {} : { usbPort: cell };
    },
    metrics: () => layer?.metrics() ?? [],
  };
}

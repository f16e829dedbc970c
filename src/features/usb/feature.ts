// The USB layer as the report sees it: a device's message gets the evidence when the kernel's word blames its port, hub,
// controller or the phone itself; a phone off its source's list but still on a port is reported as such, not UNPLUGGED.
// Built for every command, started only by the daemon; without a state directory it reads nothing.
import { USB_EVIDENCE } from '../../devices/usb-evidence.js';
import type { Feature, FeatureContext } from '../context.js';
import { usbDoctor } from './doctor.js';
import { UsbLayer } from './layer.js';

export function usbFeature(ctx: FeatureContext): Feature {
  const layer = new UsbLayer(ctx);
  ctx.shared.of(USB_EVIDENCE, () => layer);
  // Devices an earlier run reported: one on a port and off its source's list is reported so from the first report.
  layer.rememberEarlier(ctx.earlier);
  return {
    name: 'usb',
    start: () => layer.start(),
    stop: () => layer.stop(),
    notes: (device) => [layer.noteFor(device)],
    owe: (listing) => layer.oweOnUsb(listing),
    // A phone off its source's list: whether it is still on its port is read afresh, not from the last few seconds' cell.
    changed: (changes) => {
      if (changes.some((c) => c.to === undefined)) layer.readSysfsAfresh();
    },
    // The phones off adb the ledger carried for it are in the list by then: it publishes them and says so once.
    observe: (devices, carried) => void layer.withPhonesOnUsb(devices, carried),
    // Inside list's USB column: the port and what the kernel said of it, where the layer knows the port.
    columns: () => (layer.on ? [{ key: 'usbPort', title: 'USB PORT', inside: 'USB' }] : []),
    cells: (info, device): Record<string, string> => {
      const cell = layer.portCell(info, device);
      return cell === undefined ? {} : { usbPort: cell };
    },
    metrics: () => layer.metrics(),
    doctor: usbDoctor(ctx),
  };
}

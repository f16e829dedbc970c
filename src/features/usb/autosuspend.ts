// The ports that carry phones, and the doctor's line on their autosuspend: a phone on a port whose power/control is
// `auto` drops off adb every few seconds (openstf/stf #677). A phone offers adb's interface (ff/42/01) or usbmux's
// (ff/fe/02), or is one whose serial or port adb names.
import { join } from 'node:path';
import type { CheckResult } from '../../platforms/doctor.js';
import { usbBus } from '../../util/usb-path.js';
import { namesIn, readText } from './sysfs.js';

export interface PhonePort {
  port: string;
  /** power/control: `auto` (autosuspend on) or `on`; undefined when unread. */
  control?: string;
}

const PHONE_INTERFACES = new Set(['ff/42/01', 'ff/fe/02']);

/** The ports of `root` (a /sys/bus/usb/devices) carrying phones; empty where there is no sysfs. */
export function readPhonePorts(root: string, serials: ReadonlySet<string>, paths: ReadonlySet<string | undefined>) {
  const phones = new Set<string>();
  for (const name of namesIn(root) ?? []) {
    const iface = /^(\d+-\d+(?:\.\d+)*):\d+\.\d+$/.exec(name);
    const offers = () => ['bInterfaceClass', 'bInterfaceSubClass', 'bInterfaceProtocol'].map((f) => readText(join(root, name, f)) ?? '').join('/');
    if (iface && PHONE_INTERFACES.has(offers())) phones.add(iface[1]!);
    if (usbBus(name) !== undefined && (paths.has(name) || serials.has(readText(join(root, name, 'serial')) ?? ''))) phones.add(name);
  }
  return [...phones].sort().map((port) => {
    const control = readText(join(root, port, 'power', 'control'));
    return control === undefined ? { port } : { port, control };
  });
}

/** One line: the phones' ports with autosuspend on (a warning, with how to turn it off), or all of them off; none without phones on USB. */
export function autosuspendItems(ports: readonly PhonePort[]): CheckResult[] {
  const read = ports.filter((p) => p.control !== undefined);
  if (read.length === 0) return [];
  const auto = read.filter((p) => p.control === 'auto').map((p) => p.port);
  const carrying = `${read.length} ${read.length === 1 ? 'port' : 'ports'} carrying phones`;
  if (auto.length === 0) return [{ status: 'ok', finding: `USB autosuspend: off (power/control = on) on the ${carrying}` }];
  const shown = auto.length > 8 ? `${auto.slice(0, 8).join(', ')} and ${auto.length - 8} more` : auto.join(', ');
  return [
    {
      status: 'warn',
      finding: `USB autosuspend: on (power/control = auto) on ${auto.length} of the ${carrying}: ${shown}`,
      advice:
        'the kernel suspends an idle USB device, and phones drop off adb every few seconds: turn it off for good with the kernel parameter usbcore.autosuspend=-1 (then reboot), ' +
        `or now with \`echo on | sudo tee /sys/bus/usb/devices/${auto[0]}/power/control\` for each port (lost at a replug; a udev rule ATTR{power/control}="on" keeps it)`,
    },
  ];
}

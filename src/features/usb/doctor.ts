// The USB layer's lines in `doctor`: the controllers' load and the ports' autosuspend after the phones' lines, and the
// host's (whether the agent can read the kernel log, and the worst ports of the daemon's record).
import { named } from '../../platforms/doctor.js';
import type { FeatureContext, FeatureDoctor } from '../context.js';
import { autosuspendItems, readPhonePorts } from './autosuspend.js';
import { readUsbControllers, usbItems } from './controllers.js';
import { kernelLogFacts, kernelLogItem } from './kernel-log.js';
import { readPortRecord, worstPortItems } from './worst-ports.js';

export function usbDoctor(ctx: FeatureContext): FeatureDoctor {
  const { kernelLog, sysfsRoot } = ctx.settings.usb;
  return {
    ports: (phones) => {
      // The ports carrying phones (sysfs), given the service's serials and usb paths: for the controllers' load and autosuspend.
      // Without sysfs (usb.sysfsRoot ""), none, and no controllers read.
      const ports = readPhonePorts(sysfsRoot, new Set(phones.map((p) => p.serial)), new Set(phones.map((p) => p.usb)));
      const controllers = usbItems(
        phones,
        readUsbControllers(sysfsRoot),
        ports.map((p) => p.port),
      );
      return [...named('usb.controllers', controllers), ...named('usb.autosuspend', autosuspendItems(ports))];
    },
    host: (env) => {
      const items = named('usb.kernel-log', [kernelLogItem(kernelLogFacts(kernelLog, env))]);
      if (kernelLog !== '' && ctx.stateDir !== undefined)
        items.push(...named('usb.ports', worstPortItems(readPortRecord(ctx.stateDir, ctx.logger), ctx.clock.wall(), sysfsRoot, ctx.stateDir)));
      return items;
    },
  };
}

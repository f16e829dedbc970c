// The hiddenDevices entries that hide nothing: a udid no device on the host has, or an adb serial where the udid
// differs (the report matches udids). Said once, after the first report from a complete listing; a warning, never a
// refusal, as a phone may be away for a while.
import type { DeviceInfo } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';

/** Entries one line names; the rest are counted. */
const NAMED = 10;

export class HiddenDevicesCheck {
  private said = false;

  constructor(
    private readonly entries: readonly string[],
    private readonly logger: Logger,
  ) {}

  /** The present devices of a report made from a complete listing: the first time, says the entries none of them has. */
  listed(devices: readonly DeviceInfo[]) {
    if (this.said || this.entries.length === 0) return;
    this.said = true;
    const udids = new Set(devices.map((d) => d.udid));
    const udidOfSerial = new Map(devices.flatMap((d) => (d.serialNumber && d.serialNumber !== d.udid ? [[d.serialNumber, d.udid] as const] : [])));
    const unknown: string[] = [];
    const serials: Array<[serial: string, udid: string]> = [];
    for (const entry of new Set(this.entries)) {
      if (udids.has(entry)) continue;
      const udid = udidOfSerial.get(entry);
      if (udid !== undefined) serials.push([entry, udid]);
      else unknown.push(entry);
    }
    if (serials.length)
      this.logger.warn(
        { hiddenDevices: serials.map(([s]) => s) },
        `hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES) names ${serials
          .slice(0, NAMED)
          .map(([s, u]) => `${s}, the adb serial of the device whose udid is ${u}`)
          .join('; ')}${more(serials.length)}: hiddenDevices takes udids, so ${serials.length === 1 ? 'it is' : 'they are'} not hidden. Write the udid instead`,
      );
    if (unknown.length)
      this.logger.warn(
        { hiddenDevices: unknown.slice(0, NAMED) },
        `hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES) names ${unknown.slice(0, NAMED).join(', ')}${more(unknown.length)}, which no device on this host has ` +
          `(${devices.length} listed): ${unknown.length === 1 ? 'it hides' : 'they hide'} nothing here. Check each against the UDID column of device-agent list, ` +
          'or remove it if that phone left this host',
      );
  }
}

function more(n: number) {
  return n > NAMED ? ` and ${n - NAMED} more` : '';
}

import type { DeviceInfo } from '../../cloud/types.js';
import type { Logger } from '../../log/logger.js';
import { isTcpSerial } from '../../util/tcp-serial.js';
import type { LongDevice } from './adb/devices-long.js';
import { limited } from '../../log/limited.js';

/**
 * Phones that share one serial (0123456789ABCDEF on low-cost phones): adb's tracker and every request by serial see one
 * device, so the others are named in one warning while it lasts and in a metric, rather than vanish silently.
 */
export class IdentityConflicts {
  /** Serial -> how many devices adb lists under it, for serials listed more than once. */
  duplicates: ReadonlyMap<string, number> = new Map();
  /** udid -> the adb serials of different phones that claim it, for udids claimed more than once. */
  sharedUdids: ReadonlyMap<string, readonly string[]> = new Map();

  constructor(private readonly logger: Logger) {}

  /**
   * Different phones that give one udid, each under its own adb serial: the report can carry one, and the other is
   * named in one warning while it lasts. USB and TCP records of one boot (within BOOT_SLACK_S) are one phone.
   */
  checkUdids(devices: ReadonlyArray<{ serial: string; info: DeviceInfo }>) {
    const next = new Map<string, string[]>();
    for (const [udid, group] of Map.groupBy(devices, (d) => d.info.udid)) {
      if (group.length < 2 || !severalPhones(group)) continue;
      const serials = group.map((d) => d.serial).sort();
      next.set(udid, serials);
      if (this.sharedUdids.get(udid)?.join() === serials.join()) continue;
      limited(this.logger).warn(
        'udid-shared',
        { udid, serials },
        `${serials.length} different phones (adb serials ${serials.join(', ')}) give the udid ${udid}; the cloud can be told of one, so only one of them is reported. Plug only one of them into this host, or give them distinct serial numbers`,
        udid,
      );
    }
    for (const udid of this.sharedUdids.keys())
      if (!next.has(udid)) limited(this.logger).info('udid-shared-over', { udid }, `only one phone gives the udid ${udid} again`, udid);
    this.sharedUdids = next;
  }

  check(listing: readonly LongDevice[]) {
    const next = new Map<string, number>();
    for (const [serial, devices] of Map.groupBy(listing, (d) => d.serial)) {
      if (devices.length < 2) continue;
      next.set(serial, devices.length);
      if (this.duplicates.get(serial) === devices.length) continue;
      const where = devices.map((d) => d.usb ?? `transport ${d.transportId ?? '?'}`).join(', ');
      limited(this.logger).warn(
        'serial-shared',
        { serial, devices: devices.length, usb: where },
        `${devices.length} devices share the serial ${serial} (at ${where}): adb cannot tell them apart by serial, so they are reported as one device, whose inventory may fail. Plug only one of them into this host`,
        serial,
      );
    }
    for (const serial of this.duplicates.keys())
      if (!next.has(serial)) limited(this.logger).info('serial-shared-over', { serial }, `only one device has the serial ${serial} again`, serial);
    this.duplicates = next;
  }
}

/** Two boots further apart than this are two phones (the host's clock dates each boot to the second). */
const BOOT_SLACK_S = 120;

function severalPhones(group: ReadonlyArray<{ serial: string; info: DeviceInfo }>) {
  if (group.filter((d) => !isTcpSerial(d.serial)).length > 1) return true;
  const boots = group.map((d) => d.info.bootTime).filter((b) => b !== undefined);
  if (boots.length < 2) return false;
  // Folds, not Math.max(...boots): adb's list, not the code, says how many there are.
  return boots.reduce((a, b) => Math.max(a, b)) - boots.reduce((a, b) => Math.min(a, b)) > BOOT_SLACK_S;
}

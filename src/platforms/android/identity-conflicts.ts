import type { Logger } from '../../log/logger.js';
import type { LongDevice } from './adb/devices-long.js';

/**
 * Phones that share one serial (0123456789ABCDEF is common on low-cost
 * phones): adb's long listing shows each of them with its own transport,
 * but its tracker and every request by serial cannot tell them apart, so the
 * agent sees one device. The others are named here, in one warning while the
 * conflict lasts and in a metric, instead of vanishing silently.
 */
export class IdentityConflicts {
  private current = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  /** Serial -> how many devices adb lists under it, for serials listed more than once. */
  get duplicates(): ReadonlyMap<string, number> {
    return this.current;
  }

  check(listing: readonly LongDevice[]): void {
    const counts = new Map<string, LongDevice[]>();
    for (const d of listing) {
      const same = counts.get(d.serial);
      if (same) same.push(d);
      else counts.set(d.serial, [d]);
    }
    const next = new Map<string, number>();
    for (const [serial, devices] of counts) {
      if (devices.length < 2) continue;
      next.set(serial, devices.length);
      if (this.current.get(serial) === devices.length) continue;
      const where = devices.map((d) => d.usb ?? `transport ${d.transportId ?? '?'}`).join(', ');
      this.logger.warn(
        { serial, devices: devices.length, usb: where },
        `${devices.length} devices share the serial ${serial} (at ${where}): adb cannot tell them apart by serial, so they are reported as one device, whose inventory may fail. Plug only one of them into this host`,
      );
    }
    for (const serial of this.current.keys()) {
      if (!next.has(serial)) this.logger.info({ serial }, `only one device has the serial ${serial} again`);
    }
    this.current = next;
  }
}

import { facetKey, type Facet } from '../../devices/facet.js';
import { keyParts, recordKey, type Platform } from '../../devices/record.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import type { FixEntry } from './policy.js';

/**
 * The fix-it action's facet: kept by the phone's stable key past its
 * records, since a phone that replugs is the same phone, and what was read
 * and what did not stick must hold across its reconnects. The cooldown and
 * the hourly limit count the fixes' starts, which the runner keeps by the
 * phone's target past its records too (runner.ts, startsOf).
 */
const FIXES = facetKey<FixEntry>('readiness-fix', 'device');

/** What the action knows of each phone, by the serial of the platform's phone. */
export class ReadinessFixes {
  private readonly facet: Facet<FixEntry>;

  constructor(
    registry: Pick<DeviceRegistry, 'facet'>,
    private readonly platform: Platform,
  ) {
    this.facet = registry.facet(FIXES);
  }

  of(serial: string): Readonly<FixEntry> | undefined {
    return this.facet.get(recordKey(this.platform, serial));
  }

  set(serial: string, entry: FixEntry): void {
    this.facet.set(recordKey(this.platform, serial), entry);
  }

  forget(serial: string): void {
    this.facet.delete(recordKey(this.platform, serial));
  }

  serials(): string[] {
    return this.facet.entries().map(([key]) => keyParts(key).serial);
  }
}

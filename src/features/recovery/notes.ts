import { facetKey, type Facet } from '../../devices/facet.js';
import type { DeviceRegistry } from '../../devices/registry.js';

/** What recovery says of one device connection's record, for its message and its metrics. */
export interface RecoveryNotes {
  /** Why recovery leaves the device alone now (booked in the cloud, or the cloud could not say): its message carries it. */
  heldBack?: string;
  /** The hold recovery last counted in its metrics (the action and the cloud's answer behind it): one count per answer, not per look. */
  holdCounted?: string;
  /** Recovery can do no more for it: its message asks for a person, and says why. */
  attention?: string;
}

/** Dropped with the record: a device that comes back is looked at afresh. */
const NOTES = facetKey<RecoveryNotes>('recovery-notes', 'record');

/** Recovery's notes on each record, by record key. Recovery writes them; the device's message reads them. */
export class RecoveryNotebook {
  private readonly facet: Facet<RecoveryNotes>;

  constructor(private readonly registry: Pick<DeviceRegistry, 'facet' | 'get'>) {
    this.facet = registry.facet(NOTES);
  }

  of(key: string): Readonly<RecoveryNotes> | undefined {
    return this.facet.get(key);
  }

  /** Recovery holds an action back from the device, and why (undefined: no longer). */
  setHeldBack(key: string, text: string | undefined): void {
    this.update(key, { heldBack: text });
  }

  /** Recovery can do no more for the device, and why (undefined: no longer). */
  setAttention(key: string, text: string | undefined): void {
    this.update(key, { attention: text });
  }

  /** Notes the hold recovery counts for the device (undefined: none); returns false when that very hold was counted already. */
  countHold(key: string, mark: string | undefined): boolean {
    if (!this.registry.get(key) || this.facet.get(key)?.holdCounted === mark) return false;
    this.update(key, { holdCounted: mark });
    return true;
  }

  /** Only a listed device has notes: they go with its record. */
  private update(key: string, change: Partial<RecoveryNotes>): void {
    if (!this.registry.get(key)) return;
    this.facet.set(key, { ...this.facet.get(key), ...change });
  }
}

import type { Facet } from '../../devices/facet.js';
import { PERSON_NEEDED as ATTENTION } from '../../devices/person-needed.js';
import type { DeviceRegistry } from '../../devices/registry.js';

/** Recovery's call for a person on each record, by record key. Recovery writes it; the device's message reads it. */
export class RecoveryNotebook {
  private readonly facet: Facet<string>;

  constructor(registry: Pick<DeviceRegistry, 'facet'>) {
    this.facet = registry.facet(ATTENTION);
  }

  of(key: string): string | undefined {
    return this.facet.get(key);
  }

  /** Recovery can do no more for the device, and why (undefined: no longer). Only a listed device has one: it goes with its record. */
  setAttention(key: string, text: string | undefined): void {
    if (text === undefined) this.facet.delete(key);
    else this.facet.set(key, text);
  }
}

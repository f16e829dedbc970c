import type { DeviceRegistry } from '../../devices/registry.js';
import { keyParts } from '../../devices/record.js';
import { PERSON } from '../../devices/verdicts.js';

/**
 * Recovery's call for a person, as its verdict on the phone in the timeline (src/devices/verdicts.ts): the phone's
 * message says it, the in-service clock counts it needing a person, quarantine counts it a failure, the flight recorder
 * keeps an incident. Recovery writes it by record key, for the phone that record is.
 */
export class RecoveryNotebook {
  constructor(private readonly registry: Pick<DeviceRegistry, 'get' | 'timeline'>) {}

  of(key: string): string | undefined {
    return this.registry.timeline.verdictBy(this.udidOf(key), PERSON)?.words;
  }

  /** Recovery can do no more for the device, and why (undefined: no longer). */
  setAttention(key: string, text: string | undefined): void {
    this.registry.timeline.verdict(this.udidOf(key), PERSON, text === undefined ? undefined : { out: { state: 'needs_person', layer: 'phone' }, words: text });
  }

  private udidOf(key: string): string {
    const record = this.registry.get(key);
    return record?.udid ?? keyParts(key).serial;
  }
}

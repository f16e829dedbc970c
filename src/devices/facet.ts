/**
 * How long a feature's state of a device lives:
 * - `connection`: until the device's record starts a new connection (a new state) or goes (a platform's per-connection
 *   cache);
 * - `record`: until the record goes (health's battery stretch, recovery's notes on the device);
 * - `device`: by the device's stable key (see DeviceRecord.key), past its records; the feature forgets what it no
 *   longer needs (a charge pause of a phone off adb, recovery's kicks within the hour).
 */
export type Keep = 'connection' | 'record' | 'device';

/** A feature's typed per-device state, named by its owner's exported key, so a feature adds no field to the record. */
export interface FacetKey<T> {
  readonly name: string;
  readonly keep: Keep;
  /** Carries T only for the type checker. */
  readonly _type?: (value: T) => void;
}

export function facetKey<T>(name: string, keep: Keep): FacetKey<T> {
  return { name, keep };
}

/** A feature's state of each device, by the device's stable key. */
export interface Facet<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  delete(key: string): void;
  /** Every entry with its key, in the order they were first set. */
  entries(): Array<[key: string, value: T]>;
}

/**
 * The registry's store of one facet, dropping entries as the key's `keep` says. A connection or record facet takes an
 * entry only while the record is listed: what is learnt after a device went must not greet its next record.
 */
export class FacetStore<T> implements Facet<T> {
  private readonly byKey = new Map<string, T>();

  constructor(
    readonly keep: Keep,
    private readonly listed: (key: string) => boolean,
  ) {}

  get(key: string) {
    return this.byKey.get(key);
  }

  set(key: string, value: T) {
    if (this.keep !== 'device' && !this.listed(key)) return;
    this.byKey.set(key, value);
  }

  delete(key: string) {
    this.byKey.delete(key);
  }

  entries() {
    return [...this.byKey];
  }
}

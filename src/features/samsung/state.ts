import { facetKey } from '../../devices/facet.js';

/**
 * Where Samsung's battery protection stands on one phone: `pending` until read, `on` when it reads 1 and keeps to it,
 * `not-taken` when a write did not read back 1, `not-honoured` when it reads 1 yet charges well past the cap,
 * `not-samsung` for another maker, `unreadable` when the setting could not be read.
 */
export type ProtectionState = 'pending' | 'on' | 'not-taken' | 'not-honoured' | 'not-samsung' | 'unreadable';

/** What the agent knows and did of one phone's protect_battery. */
export interface ProtectionEntry {
  state: ProtectionState;
  /** The value last read (`1`, `0`, `null`, ...), as the phone printed it. */
  value?: string;
  /** Monotonic ms of the last read that answered. */
  readAt?: number;
  /** Monotonic ms since when the phone has been seen charging above the cap with the setting on. */
  overSince?: number;
  /** Reads that failed in a row: the next waits longer. */
  failures: number;
  /** The message on the device while the state is a problem (or not a Samsung). */
  message?: string;
}

/** The samsung way's facet, by record (a reconnect keeps it); the write cooldown is the runner's, past the records. */
export const PROTECTION = facetKey<ProtectionEntry>('samsung-protection', 'record');

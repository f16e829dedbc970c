// The connect backoff of the configured network addresses, which the policy reads as a value and moves by intents.
// Pure functions, and one small keeper.
import { backoffBound } from '../../util/backoff.js';

/**
 * One configured address: connect failures in a row and when the next may go. held: adb answered "already connected"
 * while listing it offline: it holds the dead transport, and only its dropping it lets a connect help (heldAt: since).
 */
export interface ConnectEntry {
  failures: number;
  nextAt: number;
  held?: boolean;
  heldAt?: number;
}

/** What the policy's plan moved of an address's backoff (a connect planned, a reconnect or a kick that puts the next connect off or forward). */
export interface BackoffIntent {
  kind: 'connect-backoff';
  address: string;
  entry: ConnectEntry;
}

export interface ConnectTiming {
  /** Backoff of network-device connects: base doubles per failure up to max. */
  connectBaseMs: number;
  connectMaxMs: number;
}

/** The agent's: a connect 2 s after a failure, the wait doubling up to 5 min. */
export const CONNECT_TIMING: ConnectTiming = { connectBaseMs: 2_000, connectMaxMs: 5 * 60_000 };

/** How long after `failures` failed connects in a row the next one may go. */
export function connectBackoff(failures: number, timing: ConnectTiming) {
  return backoffBound(failures, { firstMs: timing.connectBaseMs, maxMs: timing.connectMaxMs });
}

/** An address no connect was tried for yet: one may go at once. */
export const FRESH: Readonly<ConnectEntry> = { failures: 0, nextAt: -Infinity };

/**
 * An address's backoff after a connect's outcome. held (adb keeps a dead transport): asked again on the failure
 * backoff, not every base interval, and a base interval after the last try once adb stops listing the address.
 */
export function afterConnect(entry: ConnectEntry, outcome: { ok: boolean; held?: boolean }, now: number, timing: ConnectTiming) {
  // Connected: asked again only if it drops, no sooner than the base interval (adb may list it offline a while yet).
  if (outcome.ok && !outcome.held) return { ...entry, failures: 0, nextAt: now + timing.connectBaseMs, held: false };
  const failures = entry.failures + 1;
  return { ...entry, failures, nextAt: now + connectBackoff(failures, timing), held: outcome.ok, ...(outcome.ok && { heldAt: now }) };
}

/** What recovery keeps of the configured addresses between looks: bounded by the settings' list. */
export class ConnectBackoffs {
  private readonly entries = new Map<string, ConnectEntry>();

  constructor(
    addresses: readonly string[],
    private readonly timing: ConnectTiming,
  ) {
    for (const address of addresses) this.entries.set(address, FRESH);
  }

  /** The backoff of each configured address, as the policy takes it. */
  get view(): ReadonlyMap<string, Readonly<ConnectEntry>> {
    return this.entries;
  }

  /** A connect's outcome for a configured address (others are not kept). */
  noteOutcome(address: string, ok: boolean, now: number, held = false) {
    const entry = this.entries.get(address);
    if (entry) this.entries.set(address, afterConnect(entry, { ok, held }, now, this.timing));
  }

  /** Keeps what the policy's plan moved, and hands back the rest of what it planned. */
  take<T extends { kind: string }>(planned: ReadonlyArray<T | BackoffIntent>) {
    const out: T[] = [];
    for (const p of planned) {
      if (isBackoff(p)) {
        if (this.entries.has(p.address)) this.entries.set(p.address, p.entry);
      } else out.push(p);
    }
    return out;
  }

  get size() {
    return this.entries.size;
  }
}

function isBackoff(p: { kind: string }): p is BackoffIntent {
  return p.kind === 'connect-backoff';
}

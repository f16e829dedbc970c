// Where in each period a host's scheduled report goes. Every host of a fleet runs the same cron expression on an
// NTP-synced clock, so a bare schedule sends the whole fleet in the same second; a small random delay only smears that
// second over a few. Instead each host reports at its own stable offset into the period, read from its node id, plus a
// little randomness: a fleet's reports cover the whole period, and one host's reports stay about one period apart.

import { createHash } from 'node:crypto';

/**
 * The longest stretch a scheduled report is spread over: an hourly or daily schedule is still reported within a quarter
 * of an hour of its time, which spreads a fleet of 10,000 hosts to about 11 reports a second.
 */
export const MAX_SPREAD_MS = 15 * 60_000;

/** A number in [0, 1) fixed by the node id: hosts named lab-01, lab-02, ... land far apart. */
export function nodePhase(nodeId: string) {
  return createHash('sha256').update(nodeId).digest().readUInt32BE(0) / 2 ** 32;
}

export interface SpreadInput {
  /** nodePhase() of this host. */
  phase: number;
  /** Time from this run's cron time to the next one. */
  gapMs: number;
  /** Upper bound of the random part (jitterSeconds); at most half the window. */
  jitterMs: number;
  /** A number in [0, 1). */
  random: number;
}

/**
 * How long after its cron time a host's run goes: phase · window + random · jitter, with the window the gap to the next
 * run (at most MAX_SPREAD_MS). The random part may carry a run past the next run's cron time (never past that run): so
 * the fleet's runs are spread evenly over the period, the tail of one period's runs filling the head of the next, and
 * two runs of one host are the gap between their cron times apart, give or take the jitter.
 */
export function runDelay({ phase, gapMs, jitterMs, random }: SpreadInput) {
  const window = Math.max(0, Math.min(gapMs, MAX_SPREAD_MS));
  const jitter = Math.min(Math.max(0, jitterMs), window / 2);
  return phase * window + random * jitter;
}

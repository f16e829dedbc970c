// The reconnect loop of a long-lived connection (adb's device tracker, usbmuxd's Listen): how long to wait before
// connecting again, and what is worth a log line. A connection that dies right after it opens (a crash-looping server,
// a tunnel that cuts idle connections) counts as a failure: the wait keeps growing instead of starting over at each
// connect, and the log says it once, then sums it up now and then.

import { Backoff } from './backoff.js';
import type { Clock } from './clock.js';

export interface ReconnectPolicy {
  /** The first wait (default 250 ms). */
  reconnectMinMs?: number;
  /** The longest wait (default 10 s). */
  reconnectMaxMs?: number;
  /** A connection that stayed open this long worked: the next wait starts over (default 10 s). */
  stableMs?: number;
  /** While connections keep dying, at most one summary line this often (default 5 min). */
  summaryMs?: number;
}

/** What to say about a connection that ended: 'ended' the first time, 'flapping' when it keeps happening, then a 'summary' now and then. */
export type EndNote = 'ended' | 'flapping' | 'summary' | undefined;

/** Ends in a row, each soon after the connection opened, before it is called flapping. */
const FLAPPING_AFTER = 3;

export class Reconnects {
  private readonly backoff: Backoff;
  private readonly stableMs: number;
  private readonly summaryMs: number;
  private openedAt: number | undefined;
  /** Ends since the last connection that stayed open (this one included). */
  private ends = 0;
  private lastNoteAt = -Infinity;
  private endsAtLastNote = 0;

  constructor(
    policy: ReconnectPolicy,
    private readonly clock: Clock,
  ) {
    this.backoff = new Backoff({ firstMs: policy.reconnectMinMs ?? 250, maxMs: policy.reconnectMaxMs ?? 10_000, jitter: 0.5 }, () => clock.random());
    this.stableMs = policy.stableMs ?? 10_000;
    this.summaryMs = policy.summaryMs ?? 5 * 60_000;
  }

  /** The connection is open. */
  opened() {
    this.openedAt = this.clock.monotonic();
  }

  /** The open connection ended: the wait before connecting again, and what to log. */
  ended() {
    const now = this.clock.monotonic();
    const lived = this.openedAt === undefined ? 0 : now - this.openedAt;
    this.openedAt = undefined;
    if (lived >= this.stableMs) {
      this.backoff.reset();
      this.ends = 0;
    }
    this.ends++;
    let note: EndNote;
    if (this.ends === 1) note = 'ended';
    else if (this.ends === FLAPPING_AFTER) note = 'flapping';
    else if (this.ends > FLAPPING_AFTER && now - this.lastNoteAt >= this.summaryMs) note = 'summary';
    // A summary counts the ends since the line before it.
    const ends = note === 'summary' ? this.ends - this.endsAtLastNote : this.ends;
    if (note === 'flapping' || note === 'summary') {
      this.lastNoteAt = now;
      this.endsAtLastNote = this.ends;
    }
    return { delayMs: this.backoff.fail(), note, ends };
  }

  /** A connect attempt failed: the wait before the next one. */
  failed() {
    return this.backoff.fail();
  }
}

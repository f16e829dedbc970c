// The budget of reports that are not the schedule's own tick (and of the status endpoint's password checks,
// src/status/web-config.ts). A bucket, not a fixed gap after each report: a lone
// change goes at once (the README's 2 s), and a burst runs at the refill rate. Pure: the caller passes the time in.
//
// A token is checked when a report starts and spent when it ends; one report is in flight at a time, so every spend
// finds its token, and m reports in any window of W ms satisfy m < capacity + W / refillMs (capacity 3, a token every
// 6 s: at most 12 in any 60 s).

export interface TokenBucketOptions {
  /** Tokens when full: reports that may go one after the other. */
  capacity: number;
  /** One token comes back every refillMs. */
  refillMs: number;
}

export class TokenBucket {
  /** Credit in ms of refill (a token is refillMs of it), at `at`; full before the first spend, `at` being -Infinity. */
  private credit = 0;
  private at = -Infinity;

  constructor(private readonly o: TokenBucketOptions) {}

  private creditAt(now: number) {
    return Math.min(this.o.capacity * this.o.refillMs, this.credit + (now - this.at));
  }

  /** The earliest time, `now` or later, at which a token is free. */
  freeAt(now: number) {
    return now + Math.max(0, this.o.refillMs - this.creditAt(now));
  }

  /** A report that took a token at its start ended now. */
  spend(now: number) {
    this.credit = this.creditAt(now) - this.o.refillMs;
    this.at = now;
  }
}

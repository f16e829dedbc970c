// The budget of reports that are not the schedule's own tick (issue 42).
// A fixed gap after every report (issue 36) bounded the rate but made a lone
// plug soon after a report wait the gap out (3.4-5 s, against the 2 s the
// README promises). A bucket lets a few reports go at once and refills one
// token every refillMs, so lone changes go at once and a burst runs at the
// refill rate. Pure: the caller passes the time in.
//
// A token is checked when a report starts and spent when it ends: the PUT
// comes between the two, and one report is in flight at a time, so the
// credit never drops between a start and its end and every spend finds its
// token. Spent at the ends, the bound holds for PUTs, starts and ends alike:
// m reports in a window of W ms need m tokens (m − 1 spent inside it, one
// left at the last start), at most capacity + W / refillMs of them, less
// the part of a token not refilled at the window's edge:
// m < capacity + W / refillMs. Capacity 3 and a token every 6 s: at most 12
// in any 60 s, as the gap of 5 s gave (capacity 1, a token every 5 s, is
// that gap exactly).

export interface TokenBucketOptions {
  /** Tokens when full: reports that may go one after the other. */
  capacity: number;
  /** One token comes back every refillMs. */
  refillMs: number;
}

export class TokenBucket {
  /** Credit in ms of refill (a token is refillMs of it), at `at`. */
  private credit: number;
  private at = -Infinity;
  private readonly full: number;

  constructor(private readonly o: TokenBucketOptions) {
    this.full = o.capacity * o.refillMs;
    this.credit = this.full;
  }

  private creditAt(now: number): number {
    return Math.min(this.full, this.credit + (now - this.at));
  }

  /** The earliest time, `now` or later, at which a token is free. */
  freeAt(now: number): number {
    return now + Math.max(0, this.o.refillMs - this.creditAt(now));
  }

  /** A report that took a token at its start ended now. */
  spend(now: number): void {
    this.credit = this.creditAt(now) - this.o.refillMs;
    this.at = now;
  }
}

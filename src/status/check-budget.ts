// How many password checks the status endpoint starts in a second: a bcrypt check is tens of ms on the agent's one
// thread, so a flood of wrong passwords would delay reports. A token bucket bounds that; a pair already checked costs
// no bcrypt, so a scraper that passed once is not held by the flood. Pure.

interface CheckBudgetOptions {
  /** Checks a second, on average. */
  perSecond: number;
  /** Checks at once after a quiet time. */
  burst: number;
  /** Monotonic milliseconds. */
  now: () => number;
}

/** About 2 x 70 ms of bcrypt (cost 10 in bcryptjs) a second: a seventh of a core at most. */
export const DEFAULT_CHECKS_PER_SECOND = 2;
export const DEFAULT_CHECK_BURST = 4;

export class CheckBudget {
  private tokens: number;
  private last: number;

  constructor(private readonly options: CheckBudgetOptions) {
    this.tokens = options.burst;
    this.last = options.now();
  }

  /** Takes one check; false when none is left. */
  take() {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Whole seconds until a check is free again (for Retry-After). */
  retryAfterSeconds() {
    this.refill();
    return Math.max(1, Math.ceil((1 - this.tokens) / this.options.perSecond));
  }

  private refill() {
    const now = this.options.now();
    // A clock that went back (it should not, being monotonic) refills nothing.
    const elapsed = Math.max(0, now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.options.burst, this.tokens + elapsed * this.options.perSecond);
  }
}

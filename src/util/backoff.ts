// The one exponential backoff of the agent: cloud retries, the report resend across reports, per-device inventory and
// failed-device retries, network-device connects and the watchers' reconnects all wait by it.

export interface BackoffPolicy {
  /** The wait after the first failure, before jitter. */
  firstMs: number;
  /** The longest wait, before jitter. */
  maxMs: number;
  /** Growth per failure (default 2). */
  factor?: number;
  /**
   * The share of each wait drawn at random (default 0): 0 waits exactly the bound, 0.5 between half of it and all of
   * it, 1 anywhere up to it ("full jitter"). Jitter keeps hosts that failed together from retrying together.
   */
  jitter?: number;
}

/** The wait before jitter after `failures` failures in a row: first · factor^(failures−1), capped; 0 before any failure. */
export function backoffBound(failures: number, policy: BackoffPolicy) {
  if (failures <= 0) return 0;
  const { firstMs, maxMs, factor = 2 } = policy;
  // The exponent is capped so that a long run of failures cannot overflow to Infinity · 0.
  return Math.min(maxMs, firstMs * factor ** Math.min(failures - 1, 64));
}

/** The wait after `failures` failures in a row; `random` is a number in [0, 1). Never more than the bound, never less than (1 − jitter) of it. */
export function backoffDelay(failures: number, policy: BackoffPolicy, random: number) {
  const bound = backoffBound(failures, policy);
  const jitter = policy.jitter ?? 0;
  // Clamped: in floating point, bound − jitter·random·bound can land an ulp below (1 − jitter)·bound (fast-check found it).
  return Math.max((1 - jitter) * bound, bound - jitter * random * bound);
}

/** A run of failures of one thing: each failure gives the wait before the next try; a success starts over. */
export class Backoff {
  private count = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** Failures since the last reset. */
  get failures() {
    return this.count;
  }

  /** One more failure: how long to wait before the next try. */
  fail() {
    this.count++;
    return backoffDelay(this.count, this.policy, this.random());
  }

  reset() {
    this.count = 0;
  }
}

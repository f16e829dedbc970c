import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CloudAuthError, CloudUnavailableError } from '../../src/cloud/errors.js';
import { computeDelay, defaultRetryPolicy, parseRetryAfter, withRetry, type RetryPolicy, type RetryTiming } from '../../src/cloud/retry.js';
import { silentLogger } from '../../src/log/logger.js';

const policy: RetryPolicy = { baseDelayMs: 1_000, factor: 2, maxDelayMs: 30_000, maxRetryAfterMs: 60_000, maxAttempts: 6 };

describe('computeDelay', () => {
  it('grows exponentially with full jitter under a cap', () => {
    expect(computeDelay({ attempt: 1, now: 0, random: 0.5 }, policy)).toBe(500);
    expect(computeDelay({ attempt: 2, now: 0, random: 0.5 }, policy)).toBe(1_000);
    expect(computeDelay({ attempt: 3, now: 0, random: 0.5 }, policy)).toBe(2_000);
    expect(computeDelay({ attempt: 20, now: 0, random: 0.5 }, policy)).toBe(15_000);
    expect(computeDelay({ attempt: 3, now: 0, random: 0 }, policy)).toBe(0);
  });

  it('uses Retry-After instead of the backoff, capped', () => {
    expect(computeDelay({ attempt: 1, retryAfterMs: 7_000, now: 0, random: 0.1 }, policy)).toBe(7_000);
    expect(computeDelay({ attempt: 1, retryAfterMs: 3_600_000, now: 0, random: 0.1 }, policy)).toBe(60_000);
    expect(computeDelay({ attempt: 1, retryAfterMs: -5, now: 0, random: 0.1 }, policy)).toBe(0);
  });

  it('refuses a wait that would cross the deadline', () => {
    expect(computeDelay({ attempt: 1, now: 1_000, deadline: 1_400, random: 0.5 }, policy)).toBeUndefined();
    expect(computeDelay({ attempt: 1, now: 1_000, deadline: 1_500, random: 0.5 }, policy)).toBe(500);
    expect(computeDelay({ attempt: 1, retryAfterMs: 10_000, now: 0, deadline: 9_999, random: 0 }, policy)).toBeUndefined();
  });

  it('never returns a negative wait, one above its bound, or one past the deadline', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.option(fc.integer({ min: -1_000, max: 10_000_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 1e12 }),
        fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfterMs, now, slack, random) => {
          const deadline = slack === undefined ? undefined : now + slack;
          const delay = computeDelay({ attempt, retryAfterMs, now, deadline, random }, defaultRetryPolicy);
          if (delay === undefined) return deadline !== undefined;
          const bound = retryAfterMs === undefined ? defaultRetryPolicy.maxDelayMs : defaultRetryPolicy.maxRetryAfterMs;
          return delay >= 0 && delay <= bound && (deadline === undefined || now + delay <= deadline);
        },
      ),
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('1', now)).toBe(1_000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP-date relative to now, a past date as zero', () => {
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

/** A clock that only moves when the code under test sleeps. */
function fakeTiming(start = 0): RetryTiming & { sleeps: number[] } {
  let clock = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => clock,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  };
}

const unavailable = (retryAfterMs?: number) => new CloudUnavailableError('PUT /devices', 'HTTP 503', { status: 503, retryAfterMs });

describe('withRetry', () => {
  it('returns the first success after transient failures, waiting the computed delays', async () => {
    const timing = fakeTiming();
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw unavailable(calls === 2 ? 4_000 : undefined);
        return 'ok';
      },
      { operation: 'PUT /devices', logger: silentLogger(), policy, timing },
    );
    expect(result).toBe('ok');
    expect(timing.sleeps).toEqual([500, 4_000]);
  });

  it('throws a non-retryable error at once', async () => {
    const timing = fakeTiming();
    let calls = 0;
    const run = withRetry(
      async () => {
        calls += 1;
        throw new CloudAuthError('PUT /devices', 401);
      },
      { operation: 'PUT /devices', logger: silentLogger(), policy, timing },
    );
    await expect(run).rejects.toBeInstanceOf(CloudAuthError);
    expect(calls).toBe(1);
    expect(timing.sleeps).toEqual([]);
  });

  it('gives up after maxAttempts with the attempt count', async () => {
    const timing = fakeTiming();
    const run = withRetry(async () => Promise.reject(unavailable()), { operation: 'PUT /devices', logger: silentLogger(), policy, timing });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudUnavailableError);
    expect((error as CloudUnavailableError).attempts).toBe(6);
    expect(timing.sleeps).toHaveLength(5);
  });

  it('ends the chain instead of waiting past the deadline', async () => {
    const timing = fakeTiming(10_000);
    let calls = 0;
    const error = await withRetry(
      async () => {
        calls += 1;
        throw unavailable();
      },
      { operation: 'PUT /devices', logger: silentLogger(), policy, timing, deadline: 12_000 },
    ).catch((e: unknown) => e);
    // Waits of 500 and 1000 ms fit in 2 s; the next (2000 ms) would end after the deadline.
    expect(timing.sleeps).toEqual([500, 1_000]);
    expect(calls).toBe(3);
    expect((error as Error).message).toMatch(/deadline/);
  });

  it('does not retry an error marked as not retryable', async () => {
    const timing = fakeTiming();
    const error = new CloudUnavailableError('PUT /devices', 'TLS problem', { retryable: false });
    await expect(withRetry(async () => Promise.reject(error), { operation: 'PUT /devices', logger: silentLogger(), policy, timing })).rejects.toMatchObject({
      attempts: 1,
    });
    expect(timing.sleeps).toEqual([]);
  });
});

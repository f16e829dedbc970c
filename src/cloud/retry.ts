// Retry policy for cloud requests: p-retry runs the loop, the waiting is ours to honour Retry-After and a deadline (a
// chain must not outlive the next scheduled report). Only CloudUnavailableError is retried.

import pRetry from 'p-retry';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import { CloudUnavailableError } from './errors.js';
import { backoffBound } from '../util/backoff.js';
import { systemClock } from '../util/clock.js';
import { limited } from '../log/limited.js';

export interface RetryPolicy {
  /** Upper bound of the first backoff (full jitter picks in [0, bound]). */
  baseDelayMs: number;
  factor: number;
  /** Cap of the exponential bound. */
  maxDelayMs: number;
  /** Cap of a Retry-After the cloud asks for. */
  maxRetryAfterMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  baseDelayMs: 1_000,
  factor: 2,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  maxAttempts: 6,
};

/** Clock, randomness and sleeping, injectable so tests run fast and deterministic. */
export interface RetryTiming {
  now(): number;
  random(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realTiming: RetryTiming = {
  now: () => systemClock.wall(),
  random: () => systemClock.random(),
  sleep: async (ms, signal) => {
    await sleepFor(ms, undefined, { signal });
  },
};

export interface DelayInput {
  /** Number of the attempt that just failed (1 = the first). */
  attempt: number;
  retryAfterMs?: number;
  now: number;
  /** Epoch ms after which no attempt may start. */
  deadline?: number;
  /** A number in [0, 1). */
  random: number;
}

/** The wait before the next attempt (Retry-After capped, else exponential with full jitter); undefined past the deadline. */
export function computeDelay(input: DelayInput, policy: RetryPolicy = defaultRetryPolicy): number | undefined {
  let delay: number;
  if (input.retryAfterMs !== undefined) {
    delay = Math.min(Math.max(0, input.retryAfterMs), policy.maxRetryAfterMs);
  } else {
    // Full jitter: anywhere from 0 to the bound.
    const bound = backoffBound(Math.max(1, input.attempt), { firstMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, factor: policy.factor });
    delay = Math.floor(input.random * bound);
  }
  if (input.deadline !== undefined && input.now + delay > input.deadline) return undefined;
  return delay;
}

/** Retry-After as ms from now: delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a date-looking value: Date.parse accepts too much (e.g. "1.5").
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

export interface RetryOptions {
  /** e.g. "PUT /devices", for logs and errors. */
  operation: string;
  logger: Logger;
  policy?: RetryPolicy;
  timing?: RetryTiming;
  /** Epoch ms after which no retry starts. The first attempt always goes: a late report beats none. */
  deadline?: number;
  signal?: AbortSignal;
}

/** Runs `attempt` until it succeeds, fails unretryably (thrown as is), or the chain ends (the last error, with the attempts made). */
export async function withRetry<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const policy = options.policy ?? defaultRetryPolicy;
  const timing = options.timing ?? realTiming;
  const { logger, operation, deadline, signal } = options;
  let attempts = 0;
  let stopReason: string | undefined;

  try {
    return await pRetry(
      async (n) => {
        attempts = n;
        return attempt(n);
      },
      {
        retries: Math.max(0, policy.maxAttempts - 1),
        // p-retry's own backoff is off: shouldRetry below does the waiting.
        minTimeout: 0,
        factor: 1,
        signal,
        shouldRetry: async ({ error, attemptNumber }) => {
          if (!(error instanceof CloudUnavailableError) || !error.retryable) return false;
          const delay = computeDelay(
            { attempt: attemptNumber, retryAfterMs: error.retryAfterMs, now: timing.now(), deadline, random: timing.random() },
            policy,
          );
          if (delay === undefined) {
            stopReason = 'no retry: the next attempt would start after the report deadline';
            limited(logger).warn('cloud-attempt-failed', { operation, attempt: attemptNumber, reason: error.reason }, `${operation} failed; ${stopReason}`);
            return false;
          }
          limited(logger).warn(
            'cloud-attempt-failed',
            { operation, attempt: attemptNumber, reason: error.reason, delayMs: delay, retryAfterMs: error.retryAfterMs },
            `${operation} failed (${error.reason}); retrying in ${delay} ms`,
          );
          await timing.sleep(delay, signal);
          return true;
        },
      },
    );
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof CloudUnavailableError) throw error.withAttempts(attempts, stopReason);
    throw error;
  }
}

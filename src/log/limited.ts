import { performance } from 'node:perf_hooks';
import type { Logger } from './logger.js';
import { DEFAULT_RATE_LIMIT, LineRateLimiter, type RateLimitOptions, type Summary } from './rate-limit.js';

// The rate limiter of rate-limit.ts wired to a logger and a timer: lines that
// can repeat go through here with a cause, and the summary of what was held
// back is written when it is due even if the cause never comes again.

type Level = 'info' | 'warn' | 'error';

export interface LimitedLogOptions {
  limits?: RateLimitOptions;
  /** Monotonic ms: a wall-clock step must neither flush nor hold summaries. */
  now?: () => number;
  /**
   * What wakes a summary that is due when no line of its cause comes again:
   * on the same time line as `now` (default the system's). The shape of
   * util/clock.ts's Timers, which log/ sits below.
   */
  timers?: SummaryTimers;
}

export interface SummaryTimers {
  setTimer(fn: () => void, ms: number, options?: { unref?: boolean }): { cancel(): void };
}

const realTimers: SummaryTimers = {
  setTimer(fn, ms, options) {
    const t = setTimeout(fn, Math.max(0, ms));
    if (options?.unref) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

export class LimitedLog {
  private readonly limiter: LineRateLimiter;
  private readonly limits: RateLimitOptions;
  private readonly now: () => number;
  private readonly timers: SummaryTimers;
  private timer: { cancel(): void } | undefined;
  private timerAt: number | undefined;

  constructor(
    private readonly logger: Logger,
    options: LimitedLogOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_RATE_LIMIT;
    this.limiter = new LineRateLimiter(this.limits);
    this.now = options.now ?? (() => performance.now());
    this.timers = options.timers ?? realTimers;
  }

  info(cause: string, fields: Record<string, unknown>, msg: string, subject?: string): void {
    this.write('info', cause, fields, msg, subject);
  }

  warn(cause: string, fields: Record<string, unknown>, msg: string, subject?: string): void {
    this.write('warn', cause, fields, msg, subject);
  }

  error(cause: string, fields: Record<string, unknown>, msg: string, subject?: string): void {
    this.write('error', cause, fields, msg, subject);
  }

  /** Writes every summary still owed (before the process ends). */
  flush(): void {
    for (const s of this.limiter.drain()) this.summarise(s);
    this.rearm();
  }

  private write(level: Level, cause: string, fields: Record<string, unknown>, msg: string, subject: string | undefined): void {
    const now = this.now();
    for (const s of this.limiter.due(now)) this.summarise(s);
    if (this.limiter.admit(cause, now, { subject, text: msg, level })) this.logger[level](fields, msg);
    this.rearm();
  }

  private summarise(s: Summary): void {
    const seconds = Math.max(1, Math.round((this.now() - s.since) / 1000));
    const named = s.subjects.length ? `; among them ${s.subjects.join(', ')}${s.moreSubjects ? ` and ${s.moreSubjects} more` : ''}` : '';
    const level: Level = s.level === 'error' ? 'error' : s.level === 'warn' ? 'warn' : 'info';
    this.logger[level](
      { cause: s.cause, suppressed: s.suppressed, subjects: s.subjects.length ? s.subjects : undefined },
      `${s.suppressed} more log line${s.suppressed === 1 ? '' : 's'} of this kind in the last ${seconds} s were held back (at most ` +
        `${this.limits.burst} in ${Math.round(this.limits.windowMs / 1000)} s per kind)${named}; the last: ${s.example}`,
    );
  }

  /** One timer, at the next summary due; unref'd, so it never keeps a one-shot command alive. */
  private rearm(): void {
    const at = this.limiter.nextDueAt();
    if (at === this.timerAt) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = at;
    if (at === undefined) return;
    this.timer = this.timers.setTimer(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        for (const s of this.limiter.due(this.now())) this.summarise(s);
        this.rearm();
      },
      Math.max(0, Math.ceil(at - this.now())),
      { unref: true },
    );
  }
}

// One budget per logger, so that every module logging through the same
// logger shares it without the limiter being passed along the wiring.
const perLogger = new WeakMap<Logger, LimitedLog>();

/** The rate-limited face of a logger: use it for every line that can repeat. */
export function limited(logger: Logger): LimitedLog {
  let log = perLogger.get(logger);
  if (!log) {
    log = new LimitedLog(logger);
    perLogger.set(logger, log);
  }
  return log;
}

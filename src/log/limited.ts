import type { Logger } from './logger.js';
import { LineRateLimiter, type RateLimitOptions, type Summary } from './rate-limit.js';
import { systemClock, type Clock, type Timer, type Timers } from '../util/clock.js';

// The rate limiter of rate-limit.ts wired to a logger and a timer: lines that can repeat go through here with a cause,
// and the summary of what was held back is written when it is due even if the cause never comes again.

type Level = 'info' | 'warn' | 'error';

/**
 * The time line a limiter runs on, as the agent's Clock & Timers give it: monotonic ms (a wall-clock step must neither
 * flush nor hold summaries), and the timer that wakes a summary due when no line of its cause comes again.
 */
export type LimiterClock = Pick<Clock, 'monotonic'> & Timers;

export class LimitedLog {
  private limiter: LineRateLimiter;
  private clock: LimiterClock;
  private timer: Timer | undefined;
  private timerAt: number | undefined;

  constructor(
    private readonly logger: Logger,
    /** clock: the system's when none is given. */
    options: { limits?: RateLimitOptions; clock?: LimiterClock } = {},
  ) {
    this.limiter = new LineRateLimiter(options.limits);
    this.clock = options.clock ?? systemClock;
  }

  readonly info = this.write.bind(this, 'info');
  readonly warn = this.write.bind(this, 'warn');
  readonly error = this.write.bind(this, 'error');

  /**
   * Moves the limiter to another time line (a logger handed its clock after it limited a line). Its windows were
   * counted on the old one, which the new one need not share: what it held back is written now, and it starts afresh.
   */
  runOn(clock: LimiterClock) {
    // Nothing is owed after the flush, so its rearm leaves no timer on the old clock.
    this.flush();
    this.clock = clock;
    this.limiter = new LineRateLimiter(this.limiter.options);
  }

  /** Writes every summary still owed (before the process ends). */
  flush() {
    for (const s of this.limiter.drain()) this.summarise(s);
    this.rearm();
  }

  private write(level: Level, cause: string, fields: Record<string, unknown>, msg: string, subject?: string) {
    const now = this.clock.monotonic();
    for (const s of this.limiter.due(now)) this.summarise(s);
    if (this.limiter.admit(cause, now, { subject, text: msg, level })) this.logger[level](fields, msg);
    this.rearm();
  }

  private summarise(s: Summary) {
    const seconds = Math.max(1, Math.round((this.clock.monotonic() - s.since) / 1000));
    const { burst, windowMs } = this.limiter.options;
    const named = s.subjects.length ? `; among them ${s.subjects.join(', ')}${s.moreSubjects ? ` and ${s.moreSubjects} more` : ''}` : '';
    // Only write's levels are held: the worst of them.
    this.logger[s.level as Level](
      { cause: s.cause, suppressed: s.suppressed, subjects: s.subjects.length ? s.subjects : undefined },
      `${s.suppressed} more log line${s.suppressed === 1 ? '' : 's'} of this kind in the last ${seconds} s were held back (at most ` +
        `${burst} in ${Math.round(windowMs / 1000)} s per kind)${named}; the last: ${s.example}`,
    );
  }

  /** One timer, at the next summary due; unref'd, so it never keeps a one-shot command alive. */
  private rearm() {
    const at = this.limiter.nextDueAt();
    if (at === this.timerAt) return;
    // Cancelling a timer that has fired already does nothing.
    this.timer?.cancel();
    this.timerAt = at;
    this.timer =
      at === undefined
        ? undefined
        : this.clock.setTimer(
            () => {
              this.timerAt = undefined;
              for (const s of this.limiter.due(this.clock.monotonic())) this.summarise(s);
              this.rearm();
            },
            Math.max(0, Math.ceil(at - this.clock.monotonic())),
            { unref: true },
          );
  }
}

// One budget per logger, so that every module logging through the same logger shares it without the limiter being
// passed along the wiring.
const perLogger = new WeakMap<Logger, LimitedLog>();

// The clock a logger carries, for the same reason: the wiring hands it to the logger once (carryClock), and every
// limited(logger) runs on it. A property of the logger rather than an entry of a map, so that a child logger, which
// pino makes with the logger as its prototype, carries it too.
const CLOCK = Symbol('device-agent.limiter-clock');
type Carrying = Logger & { [CLOCK]?: LimiterClock };

/**
 * Hands the logger the clock its limiter runs on: the agent's, so that a summary held back is counted and written on
 * the time line everything else decides on (a virtual one in tests and simulations). A logger that carries none runs on
 * the system's.
 */
export function carryClock(logger: Logger, clock: LimiterClock) {
  // A limiter made before runs on what the logger carried then, the system's if nothing: the same clock moves nothing.
  const before = (logger as Carrying)[CLOCK] ?? systemClock;
  Object.defineProperty(logger, CLOCK, { value: clock, configurable: true, writable: true });
  if (clock !== before) perLogger.get(logger)?.runOn(clock);
}

/** The rate-limited face of a logger: use it for every line that can repeat. */
export function limited(logger: Logger) {
  let log = perLogger.get(logger);
  if (!log) {
    const clock = (logger as Carrying)[CLOCK];
    log = new LimitedLog(logger, { clock });
    perLogger.set(logger, log);
  }
  return log;
}

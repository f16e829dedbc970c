// Which log lines may be written, per cause: the first `burst` lines of a cause in any window of `windowMs`, then
// silence, then one summary with the count of what was held back. A flood of one cause (5,000 udids in one answer, a
// tracker that dies 4 times a second, a SIGHUP storm) thus costs at most burst + 1 lines per window, whatever the
// input.
//
// Pure: the caller passes the time in. A cause is a constant of the code ("adb-tracking-ended"), never built from
// input; what varies (a udid, a serial) is the subject, of which the summary names a few. Memory is bounded by the
// causes seen in the last window: `burst` timestamps each, and at most `maxSubjects` subjects.

export interface RateLimitOptions {
  /** Lines of one cause let through in any window. */
  burst: number;
  windowMs: number;
  /** Subjects a summary names; the others are counted. */
  maxSubjects: number;
}

/** At most 11 lines a minute per cause: 10, and a summary of the rest. */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { burst: 10, windowMs: 60_000, maxSubjects: 20 };

export interface Summary {
  cause: string;
  /** Lines held back since the last summary. */
  suppressed: number;
  /** When the first of them came (the caller's clock). */
  since: number;
  /** Some of their subjects, in the order they came. */
  subjects: string[];
  /** Further distinct subjects not named. */
  moreSubjects: number;
  /** The last line held back, as an example. */
  example: string;
  level: string;
}

interface CauseState {
  /** Times of the lines let through, within the last window; oldest first. */
  admitted: number[];
  suppressed: number;
  firstSuppressedAt: number;
  subjects: Set<string>;
  moreSubjects: number;
  example: string;
  level: string;
}

export class LineRateLimiter {
  private readonly causes = new Map<string, CauseState>();

  constructor(private readonly options: RateLimitOptions = DEFAULT_RATE_LIMIT) {}

  /**
   * Whether a line of this cause may be written now. A line held back is counted for the cause's next summary, with its
   * subject and text.
   */
  admit(cause: string, now: number, line: { subject?: string; text?: string; level?: string } = {}) {
    const { burst, windowMs, maxSubjects } = this.options;
    let state = this.causes.get(cause);
    if (!state) {
      state = { admitted: [], suppressed: 0, firstSuppressedAt: 0, subjects: new Set(), moreSubjects: 0, example: '', level: 'info' };
      this.causes.set(cause, state);
    }
    while (state.admitted.length && state.admitted[0]! <= now - windowMs) state.admitted.shift();
    // A summary still owed goes out before any new line of its cause: the lines let through again must not overtake the
    // count of those held back.
    if (state.admitted.length < burst && state.suppressed === 0) {
      state.admitted.push(now);
      return true;
    }
    if (state.suppressed === 0) state.firstSuppressedAt = now;
    state.suppressed++;
    if (line.subject !== undefined && !state.subjects.has(line.subject)) {
      if (state.subjects.size < maxSubjects) state.subjects.add(line.subject);
      else state.moreSubjects++;
    }
    if (line.text !== undefined) state.example = line.text;
    if (line.level !== undefined && severity(line.level) >= severity(state.level)) state.level = line.level;
    return false;
  }

  /**
   * Summaries due at `now`, each handed out once: a cause's summary comes one window after the first line it held back,
   * so summaries of one cause are at least a window apart.
   */
  due(now: number): Summary[] {
    const out: Summary[] = [];
    for (const [cause, state] of this.causes) {
      if (state.suppressed > 0 && now >= state.firstSuppressedAt + this.options.windowMs) out.push(this.summarise(cause, state));
      else if (state.suppressed === 0 && (state.admitted.length === 0 || state.admitted[state.admitted.length - 1]! <= now - this.options.windowMs)) {
        // Quiet for a whole window: nothing of it is needed any more.
        this.causes.delete(cause);
      }
    }
    return out;
  }

  /** Every summary still owed, due or not (the process is about to end). */
  drain(): Summary[] {
    const out: Summary[] = [];
    for (const [cause, state] of this.causes) if (state.suppressed > 0) out.push(this.summarise(cause, state, false));
    return out;
  }

  /** When the next summary is due; undefined when none is owed. */
  nextDueAt() {
    let next: number | undefined;
    for (const state of this.causes.values()) {
      if (state.suppressed === 0) continue;
      const at = state.firstSuppressedAt + this.options.windowMs;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /** Causes held in memory (for tests of the bound). */
  get size() {
    return this.causes.size;
  }

  private summarise(cause: string, state: CauseState, windowOver = true): Summary {
    const summary: Summary = {
      cause,
      suppressed: state.suppressed,
      since: state.firstSuppressedAt,
      subjects: [...state.subjects],
      moreSubjects: state.moreSubjects,
      example: state.example,
      level: state.level,
    };
    state.suppressed = 0;
    state.subjects = new Set();
    state.moreSubjects = 0;
    state.example = '';
    state.level = 'info';
    // Every line let through before it is a window old (it came before the first one held back), so a new window starts
    // with the summary, which counts as its cause's line: burst + 1 lines in any window at most.
    if (windowOver) state.admitted = [];
    return summary;
  }
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

function severity(level: string) {
  return LEVELS.indexOf(level);
}

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
  /** What its next summary says, from the first line held back; none while nothing is. */
  held?: Omit<Summary, 'cause' | 'subjects'> & { subjects: Set<string> };
}

export class LineRateLimiter {
  private readonly causes = new Map<string, CauseState>();

  constructor(readonly options = DEFAULT_RATE_LIMIT) {}

  /**
   * Whether a line of this cause may be written now. A line held back is counted for the cause's next summary, with its
   * subject and text.
   */
  admit(cause: string, now: number, line: { subject?: string; text?: string; level?: string } = {}) {
    const { burst, windowMs, maxSubjects } = this.options;
    let state = this.causes.get(cause);
    if (!state) this.causes.set(cause, (state = { admitted: [] }));
    while (state.admitted.length && state.admitted[0]! <= now - windowMs) state.admitted.shift();
    // A summary still owed goes out before any new line of its cause: the lines let through again must not overtake the
    // count of those held back.
    if (state.admitted.length < burst && !state.held) {
      state.admitted.push(now);
      return true;
    }
    const held = (state.held ??= { suppressed: 0, since: now, subjects: new Set(), moreSubjects: 0, example: '', level: 'info' });
    held.suppressed++;
    if (line.subject !== undefined && !held.subjects.has(line.subject)) {
      if (held.subjects.size < maxSubjects) held.subjects.add(line.subject);
      else held.moreSubjects++;
    }
    if (line.text !== undefined) held.example = line.text;
    if (line.level !== undefined && LEVELS.indexOf(line.level) >= LEVELS.indexOf(held.level)) held.level = line.level;
    return false;
  }

  /**
   * Summaries due at `now`, each handed out once: a cause's summary comes one window after the first line it held back,
   * so summaries of one cause are at least a window apart.
   */
  due(now: number) {
    const out: Summary[] = [];
    for (const [cause, state] of this.causes) {
      if (state.held) {
        if (now >= state.held.since + this.options.windowMs) out.push(this.summarise(cause, state));
      } else if (state.admitted.length === 0 || state.admitted.at(-1)! <= now - this.options.windowMs) {
        // Quiet for a whole window: nothing of it is needed any more.
        this.causes.delete(cause);
      }
    }
    return out;
  }

  /** Every summary still owed, due or not (the process is about to end). */
  drain() {
    return [...this.causes].flatMap(([cause, state]) => (state.held ? [this.summarise(cause, state, false)] : []));
  }

  /** When the next summary is due; undefined when none is owed. */
  nextDueAt() {
    let next: number | undefined;
    for (const { held } of this.causes.values()) if (held && (next === undefined || held.since < next)) next = held.since;
    return next === undefined ? undefined : next + this.options.windowMs;
  }

  /** Causes held in memory (for tests of the bound). */
  get size() {
    return this.causes.size;
  }

  private summarise(cause: string, state: CauseState, windowOver = true) {
    const held = state.held!;
    state.held = undefined;
    // Every line let through before it is a window old (it came before the first one held back), so a new window starts
    // with the summary, which counts as its cause's line: burst + 1 lines in any window at most.
    if (windowOver) state.admitted = [];
    return { cause, ...held, subjects: [...held.subjects] };
  }
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

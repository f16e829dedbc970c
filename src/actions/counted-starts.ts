/** One counted start of a target's work. */
export interface Start {
  /** Monotonic ms. */
  at: number;
  /** The target's failure count when the work started (0 when not counted): recovery's next action waits for as many again. */
  failures: number;
}

/** The starts still within their window at `now` (monotonic ms), oldest first. */
export function startsWithin(starts: readonly Start[], now: number, keepMs: number) {
  return starts.filter((s) => now - s.at < keepMs);
}

/**
 * When the counted work of each target started, kept for its window: the one history every action's cooldowns and
 * hourly limits decide from. A target with no start left in its window is forgotten at the next count.
 */
export class CountedStarts {
  private readonly byTarget = new Map<string, { keepMs: number; starts: Start[] }>();

  /** A start of the target's work at `now`, kept `keepMs`. */
  count(target: string, now: number, keepMs: number, failures = 0) {
    for (const [key, entry] of this.byTarget) {
      const kept = startsWithin(entry.starts, now, entry.keepMs);
      if (kept.length > 0) this.byTarget.set(key, { ...entry, starts: kept });
      else this.byTarget.delete(key);
    }
    this.byTarget.set(target, { keepMs, starts: [...(this.byTarget.get(target)?.starts ?? []), { at: now, failures }] });
  }

  /** The target's starts within their window at `now`, oldest first. */
  of(target: string, now: number): readonly Start[] {
    const entry = this.byTarget.get(target);
    return entry ? startsWithin(entry.starts, now, entry.keepMs) : [];
  }

  /** How many targets are kept (for the bound's tests). */
  get size() {
    return this.byTarget.size;
  }
}

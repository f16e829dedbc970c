// "Say this once, then summarize": what a condition that lasts (a refusal, a failing address, a phone off the list) has
// said of each subject, so that its line is written when it starts or changes and not at every look, and what was held
// back since can be summed up later in one line. Here rather than as a set or map beside each caller, the same way
// everywhere.
//
// The rate limiter (rate-limit.ts) bounds how many lines a cause writes; this keeps one line from repeating. Time is
// the caller's monotonic clock.

/** What was said of a subject, and what came after it. */
export interface Said {
  text: string;
  /** Monotonic ms it was said (first, or changed to this text). */
  at: number;
  /** The same text met again since it was said (or since the last summary), each held back. */
  repeats: number;
  /** Monotonic ms of the last summary of it (`at` before any). */
  summarizedAt: number;
}

/** A summary due: a subject whose line was held back `repeats` times since `since`. */
export interface SaidSummary {
  subject: string;
  text: string;
  repeats: number;
  since: number;
}

export class SaidOnce {
  private readonly said = new Map<string, Said>();

  /**
   * @param now the caller's monotonic clock (Clock.monotonic)
   * @param max subjects kept at most: past it the oldest is forgotten (and so may be said again), never a growing map
   */
  constructor(
    private readonly now: () => number,
    private readonly max = 10_000,
  ) {}

  /**
   * Whether to say `text` of `subject` now: yes the first time and when the text changed; a repeat of what was said is
   * counted and held back.
   */
  say(subject: string, text = '') {
    const entry = this.said.get(subject);
    if (entry?.text === text) {
      entry.repeats++;
      return false;
    }
    const at = this.now();
    this.said.delete(subject);
    this.said.set(subject, { text, at, repeats: 0, summarizedAt: at });
    if (this.said.size > this.max) this.said.delete(this.said.keys().next().value!);
    return true;
  }

  /** What was said of the subject, if it stands. */
  of(subject: string): Readonly<Said> | undefined {
    return this.said.get(subject);
  }

  /** The condition ended: the next time is said again. Returns what stood, for a line that sums it up. */
  forget(subject: string): Readonly<Said> | undefined {
    const entry = this.said.get(subject);
    this.said.delete(subject);
    return entry;
  }

  /** Keeps only the subjects whose condition goes on (the devices still listed, the verdicts still found). */
  retain(keep: (subject: string) => boolean) {
    for (const subject of [...this.said.keys()]) if (!keep(subject)) this.said.delete(subject);
  }

  /**
   * The subjects repeated since they were said or last summed up, at most one summary per subject every `everyMs`: each
   * is handed out once, and its count starts again.
   */
  due(everyMs: number): SaidSummary[] {
    const now = this.now();
    const out: SaidSummary[] = [];
    for (const [subject, entry] of this.said) {
      if (entry.repeats === 0 || now - entry.summarizedAt < everyMs) continue;
      out.push({ subject, text: entry.text, repeats: entry.repeats, since: entry.summarizedAt });
      entry.repeats = 0;
      entry.summarizedAt = now;
    }
    return out;
  }

  get size() {
    return this.said.size;
  }
}

/** A summary in words: "said of SUBJECT N more times in the last S s: TEXT". */
export function summaryText(s: SaidSummary, now: number) {
  const seconds = Math.max(1, Math.round((now - s.since) / 1000));
  return `${s.subject}: the same ${s.repeats} more time${s.repeats === 1 ? '' : 's'} in the last ${seconds} s (said once): ${s.text}`;
}

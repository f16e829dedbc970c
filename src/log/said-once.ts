// "Say this once": what a condition that lasts (a refusal, a failing address, a phone off the list) has said of each
// subject, so that its line is written when it starts or changes and not at every look. Here rather than as a set or map
// beside each caller, the same way everywhere.
//
// The rate limiter (rate-limit.ts) bounds how many lines a cause writes; this keeps one line from repeating.

export class SaidOnce {
  /** What was said of each subject. */
  private readonly said = new Map<string, string>();

  /** @param max subjects kept at most: past it the oldest is forgotten (and so may be said again), never a growing map */
  constructor(private readonly max = 10_000) {}

  /** Whether to say `text` of `subject` now: yes the first time and when the text changed; a repeat of what was said is held back. */
  say(subject: string, text = '') {
    if (this.said.get(subject) === text) return false;
    this.said.delete(subject);
    this.said.set(subject, text);
    if (this.said.size > this.max) this.said.delete(this.said.keys().next().value!);
    return true;
  }

  /** The condition ended: the next time is said again. Returns what was said, if anything. */
  forget(subject: string) {
    const entry = this.said.get(subject);
    this.said.delete(subject);
    return entry;
  }

  /** Keeps only the subjects whose condition goes on (the devices still listed, the verdicts still found). */
  retain(keep: (subject: string) => boolean) {
    for (const subject of [...this.said.keys()]) if (!keep(subject)) this.said.delete(subject);
  }

  get size() {
    return this.said.size;
  }
}

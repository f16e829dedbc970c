// When a change that no event announced began. The clock hears most changes as they happen (adb's list, the kernel, the
// cloud's answers); a few only an inventory can find, after the fact. Those are dated halfway between the last word
// that the phone was fine and the one that found it not, which halves the error on average (the truth lies between).

/** What the clock knows of a phone's inventories (monotonic ms), and what it now holds of it. */
interface Dating {
  /** Its time since its failures began is held until an answer dates it (clock.ts). */
  held: boolean;
  /** Its last inventory that answered in full, and the one before. */
  good?: number;
  prevGood?: number;
  /** Its latest failed inventory. */
  failedAt?: number;
  /** The first failure of its current run of failures. */
  failingSince?: number;
  /** Out for what an answer read (its readiness failing, the phone reading itself unavailable), with no failure since. */
  read: boolean;
}

/**
 * When the change the clock sees now began, or undefined for now: a failure (a shell that hung) from its last answer
 * to the failed inventory; a return from failing from its latest failure to the answer; what an answer read from the
 * inventory before.
 */
export function backdateOf(d: Dating) {
  const { good } = d;
  if (good === undefined) return undefined;
  if (d.held) return d.failedAt !== undefined && good > d.failedAt ? (d.failedAt + good) / 2 : undefined;
  if (d.failingSince !== undefined && d.failingSince > good) return (good + d.failingSince) / 2;
  if (d.read && d.prevGood !== undefined) return (d.prevGood + good) / 2;
  return undefined;
}

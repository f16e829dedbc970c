// A phone that keeps changing state (a bad cable or port, a boot loop, flaky Wi-Fi) must not write a line per
// transition: its first FLAP_RULES.threshold changes in a window are logged at info; the next says once that it flaps
// and whom to suspect; further changes go to debug, summed up at most once per summaryMs; a quiet window says it
// settled. Pure; memory per phone at most threshold + 1 times.

/** More than 3 changes in 5 min is flapping; one summary per phone per 10 min; 5 quiet min is settled. */
export const FLAP_RULES = {
  /** Changes in a window that are still logged one by one; one more makes the phone flapping. */
  threshold: 3,
  /** The window the changes are counted over, and the quiet time after which a flapping phone has settled. */
  windowMs: 300_000,
  /** Least time between two summaries of one flapping phone. */
  summaryMs: 600_000,
};

/** What one line of the log says of a phone's changes. */
export type FlapLine =
  /** One change, at info while the phone is not flapping, at debug while it is. */
  | { kind: 'change'; quiet: boolean; serial: string; from: string | undefined; to: string | undefined }
  /** The phone started flapping (`changes` in the last `ms`), or keeps flapping (`changes` since the last line, `ms` ago). */
  | { kind: 'flapping' | 'still-flapping'; serial: string; changes: number; ms: number; state: string | undefined }
  /** No change for a window: `changes` in all since it started flapping `ms` ago. */
  | { kind: 'settled'; serial: string; changes: number; ms: number; state: string | undefined };

interface Run {
  since: number;
  total: number;
  /** Changes since the last line about the run. */
  pending: number;
  lastLineAt: number;
  lastChangeAt: number;
}

interface Phone {
  /** Times of the latest changes within the window, oldest first; at most threshold + 1. */
  recent: number[];
  state: string | undefined;
  run?: Run;
}

export class FlapLedger {
  private readonly phones = new Map<string, Phone>();

  /** A change of one phone at `now`: the lines it makes (after any summary already due). */
  note(change: { serial: string; from?: string; to?: string }, now: number) {
    const out = this.due(now);
    const { serial, from, to } = change;
    const { threshold, windowMs } = FLAP_RULES;
    let phone = this.phones.get(serial);
    if (!phone) {
      phone = { recent: [], state: to };
      this.phones.set(serial, phone);
    }
    phone.state = to;
    phone.recent = phone.recent.filter((t) => t > now - windowMs);
    phone.recent.push(now);
    if (phone.recent.length > threshold + 1) phone.recent.shift();
    const { run } = phone;
    if (run) {
      run.total++;
      run.pending++;
      run.lastChangeAt = now;
      out.push({ kind: 'change', quiet: true, serial, from, to });
    } else if (phone.recent.length > threshold) {
      const since = phone.recent[0]!;
      phone.run = { since, total: phone.recent.length, pending: 0, lastLineAt: now, lastChangeAt: now };
      out.push({ kind: 'change', quiet: true, serial, from, to });
      out.push({ kind: 'flapping', serial, changes: phone.recent.length, ms: now - since, state: to });
    } else {
      out.push({ kind: 'change', quiet: false, serial, from, to });
    }
    return out;
  }

  /** The summaries and settled lines due at `now`, each handed out once. */
  due(now: number) {
    const { windowMs, summaryMs } = FLAP_RULES;
    const out: FlapLine[] = [];
    for (const [serial, phone] of this.phones) {
      const { run } = phone;
      if (!run) {
        if (phone.recent.every((t) => t <= now - windowMs)) this.phones.delete(serial);
        continue;
      }
      if (now - run.lastChangeAt >= windowMs) {
        out.push({ kind: 'settled', serial, changes: run.total, ms: run.lastChangeAt - run.since, state: phone.state });
        this.phones.delete(serial);
      } else if (run.pending > 0 && now - run.lastLineAt >= summaryMs) {
        out.push({ kind: 'still-flapping', serial, changes: run.pending, ms: now - run.lastLineAt, state: phone.state });
        run.pending = 0;
        run.lastLineAt = now;
      }
    }
    return out;
  }

  /** When the next summary or settled line is due; undefined when no phone is flapping. */
  nextDueAt() {
    let next: number | undefined;
    for (const { run } of this.phones.values()) {
      if (!run) continue;
      let at = run.lastChangeAt + FLAP_RULES.windowMs;
      if (run.pending > 0) at = Math.min(at, run.lastLineAt + FLAP_RULES.summaryMs);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }
}

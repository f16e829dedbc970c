import { Counter, type CounterKey } from './counter.js';

/** A refusal of the reports by the cloud (AgentStats.refusal). */
export interface CloudRefusal {
  status: number;
  /** 401 or 403: the credentials (or the account's rights), not the report. */
  credentials: boolean;
  since: number;
  message: string;
}

/** How one source's last collect went (src/report/execute.ts), for /metrics. */
export interface SourceRun {
  durationMs: number;
  ok: boolean;
}

/** What /healthz, /metrics and the logs read about the agent's recent work. */
export class AgentStats {
  reportsSent = 0;
  reportsFailed = 0;
  lastSuccessAt: number | undefined;
  lastFailure: string | undefined;
  /** When the last report failed (wall ms). */
  lastFailureAt: number | undefined;
  /**
   * The cloud refused the reports as such (401 or 403: the credentials; another 4xx: the request) since `since` (wall
   * ms), with its message saying what to check: waiting cannot cure it, so /healthz names it from the first refusal
   * until a report is delivered again.
   */
  refusal: CloudRefusal | undefined;
  lastInventoryDurationMs: number | undefined;
  /** A report made after every source had listed its devices, each answering, was delivered: only then is the host healthy. */
  listingDelivered = false;
  /** The last collect of each source (platform): how long it took and whether it answered. */
  readonly sourceRuns = new Map<string, SourceRun>();
  /** Each feature's own counters, by the key it declares (counter.ts); its metrics() hook serves them. */
  private readonly counters = new Map<CounterKey, Counter>();
  /** The one counter of this key: the action that counts and the feature that serves it share it. */
  counter(key: CounterKey) {
    let counter = this.counters.get(key);
    if (!counter) this.counters.set(key, (counter = new Counter(key)));
    return counter;
  }

  noteSourceRun(source: string, run: SourceRun) {
    this.sourceRuns.set(source, run);
  }
}

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
  lastInventoryDurationMs: number | undefined;
  /** A report made after every source had listed its devices, each answering, was delivered: only then is the host healthy. */
  listingDelivered = false;
  /** The last collect of each source (platform): how long it took and whether it answered. */
  readonly sourceRuns = new Map<string, SourceRun>();
  /** Recovery actions carried out, keyed "action|result". */
  readonly recoveryActions = new Map<string, number>();
  /** Recovery actions the booking gate held back, keyed "action|reason" (booked, unknown): once per cloud answer. */
  readonly recoveryHeld = new Map<string, number>();
  /** Host actions refused for a device whose identity does not hold (actions/trust.ts), by action; once per device and reason. */
  readonly actionsRefused = new Map<string, number>();
  /** Charge pauses started. */
  chargePauses = 0;
  /** Charge pauses ended, by why (booked, max_time, low_mark). */
  readonly chargeEnds = new Map<string, number>();
  /** Hub port switches of charge control, keyed "power|result" (off|ok, on|failed, ...). */
  readonly chargeSwitches = new Map<string, number>();
  /** Writes of Samsung's protect_battery, by result (taken, not_taken). */
  readonly protectionWrites = new Map<string, number>();
  /** Samsung battery protection problems found (not_taken, not_honoured), each counted when it starts. */
  readonly protectionProblems = new Map<string, number>();

  /** One more refusal of this action (kick, power_cycle, charge_pause). */
  noteRefused(action: string): void {
    this.actionsRefused.set(action, (this.actionsRefused.get(action) ?? 0) + 1);
  }

  noteSourceRun(source: string, run: SourceRun): void {
    this.sourceRuns.set(source, run);
  }
}

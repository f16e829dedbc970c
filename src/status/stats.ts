/** What /healthz, /metrics and the logs read about the agent's recent work. */
export class AgentStats {
  reportsSent = 0;
  reportsFailed = 0;
  lastSuccessAt: number | undefined;
  lastFailure: string | undefined;
  lastInventoryDurationMs: number | undefined;
  devicesByState = new Map<string, number>();
  /** Recovery actions carried out, keyed "action|result". */
  readonly recoveryActions = new Map<string, number>();
  /** Recovery actions the booking gate held back, keyed "action|reason" (booked, unknown): once per cloud answer. */
  readonly recoveryHeld = new Map<string, number>();
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

  noteDevices(states: Iterable<string>): void {
    const counts = new Map<string, number>();
    for (const state of states) counts.set(state, (counts.get(state) ?? 0) + 1);
    this.devicesByState = counts;
  }
}

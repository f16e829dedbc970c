export interface HealthInput {
  now: number;
  startedAt: number;
  lastSuccessAt?: number;
  lastFailure?: string;
  /** What each source says keeps the host from reporting its devices (adb tracking down). */
  sourceProblems: readonly string[];
  /** A report made once every source had listed its devices was delivered (issue 33: not the start report of an empty listing). */
  listingDelivered: boolean;
  /** How old the last successful report may be. */
  maxReportAgeMs: number;
}

export interface Health {
  ok: boolean;
  reasons: string[];
}

/** Healthy: a report reflecting every source's listing went through, the last one recently, and no source says it is down. Pure. */
export function evaluateHealth(input: HealthInput): Health {
  const reasons: string[] = [...input.sourceProblems];
  if (input.lastSuccessAt !== undefined && !input.listingDelivered) {
    reasons.push(
      `no report made after every source had listed its devices has been delivered since the start ${Math.round((input.now - input.startedAt) / 1000)} s ago`,
    );
  } else if (input.lastSuccessAt === undefined) {
    reasons.push(
      `no report delivered since the start ${Math.round((input.now - input.startedAt) / 1000)} s ago${input.lastFailure ? `; last failure: ${input.lastFailure}` : ''}`,
    );
  } else if (input.now - input.lastSuccessAt > input.maxReportAgeMs) {
    reasons.push(
      `the last report was delivered ${Math.round((input.now - input.lastSuccessAt) / 1000)} s ago (limit ${Math.round(input.maxReportAgeMs / 1000)} s)${input.lastFailure ? `; last failure: ${input.lastFailure}` : ''}`,
    );
  }
  return { ok: reasons.length === 0, reasons };
}

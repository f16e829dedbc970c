export interface HealthInput {
  now: number;
  startedAt: number;
  lastSuccessAt?: number;
  lastFailure?: string;
  trackerAlive: boolean;
  adbError?: string;
  /** How old the last successful report may be. */
  maxReportAgeMs: number;
}

export interface Health {
  ok: boolean;
  reasons: string[];
}

/** Healthy: the last report went through recently and adb tracking is alive. Pure. */
export function evaluateHealth(input: HealthInput): Health {
  const reasons: string[] = [];
  if (!input.trackerAlive) reasons.push(`adb device tracking is down${input.adbError ? `: ${input.adbError}` : ''}`);
  if (input.lastSuccessAt === undefined) {
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

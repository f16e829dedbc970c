import type { CloudRefusal } from '../stats/agent-stats.js';

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
  /** The cloud refuses the reports as such since the first refusal, until one is delivered (AgentStats.refusal). */
  refusal?: CloudRefusal;
}

export interface Health {
  ok: boolean;
  reasons: string[];
  /** The reasons as /healthz says them: fixed words, without error texts, addresses or names. */
  brief: string[];
}

/** Healthy: a report reflecting every source's listing went through, the last one recently, and no source says it is down. Pure. */
export function evaluateHealth(input: HealthInput) {
  const reasons = [...input.sourceProblems];
  // A source's problem starts with what is down; what follows a colon is an error text.
  const brief = input.sourceProblems.map((p) => p.split(':')[0]!.slice(0, 80));
  const refusal = input.refusal;
  const upSeconds = Math.round((input.now - input.startedAt) / 1000);
  const lastFailure = input.lastFailure ? `; last failure: ${input.lastFailure}` : '';
  if (refusal) {
    // Waiting cannot cure it: named from the first refusal, not as a report grown too old minutes later. It
    // stands for the other reasons of the cloud's part (no report delivered, too old): it is their cause.
    brief.push(refusalBrief(refusal));
    reasons.push(`the cloud has refused every report since ${new Date(refusal.since).toISOString()}: ${refusal.message}`);
  } else if (input.lastSuccessAt !== undefined && !input.listingDelivered) {
    brief.push('no report of every source delivered');
    reasons.push(`no report made after every source had listed its devices has been delivered since the start ${upSeconds} s ago`);
  } else if (input.lastSuccessAt === undefined) {
    brief.push('no report delivered');
    reasons.push(`no report delivered since the start ${upSeconds} s ago${lastFailure}`);
  } else if (input.now - input.lastSuccessAt > input.maxReportAgeMs) {
    brief.push('last report too old');
    reasons.push(
      `the last report was delivered ${Math.round((input.now - input.lastSuccessAt) / 1000)} s ago (limit ${Math.round(input.maxReportAgeMs / 1000)} s)${lastFailure}`,
    );
  }
  return { ok: reasons.length === 0, reasons, brief };
}

/** /healthz's words for a refusal: what the cloud refused and what to do, without its text. */
function refusalBrief(r: CloudRefusal) {
  if (r.status === 401) return 'cloud refused the credentials (HTTP 401): fix DEVICE_AGENT_USERNAME or the API key and restart the agent';
  if (r.credentials) return 'cloud refused the account (HTTP 403): check the credentials and that the account may report devices, then restart the agent';
  if (r.status === 404) return 'cloud answered 404: DEVICE_AGENT_BASE_URL is likely not its v1 root; fix it and restart the agent';
  return `cloud rejected the report (HTTP ${r.status}): see the agent's log`;
}

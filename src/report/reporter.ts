import { CloudAuthError, CloudError, CloudRejectedError } from '../cloud/errors.js';
import { adviceFor } from '../cloud/failed-devices.js';
import { STATUS_UNPLUGGED, type DeviceInfo, type FailedDevice, type Machine, type ReportAnswer, type ReportBody } from '../cloud/types.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { HealthMonitor } from '../health/monitor.js';
import type { Logger } from '../log/logger.js';
import type { CollectRequest, DeviceSource } from '../platforms/source.js';
import type { AgentStats } from '../status/stats.js';
import type { Failure } from '../timing/planner.js';
import type { Clock } from '../util/clock.js';
import { decorate, type DecorateSettings } from './decorate.js';
import type { ReportedStore } from './reported-store.js';
import type { UnpluggedLedger } from './unplugged.js';
import { cleanStrings } from './clean-strings.js';

export interface ReportSink {
  putDevices(body: ReportBody, options?: { deadline?: number; signal?: AbortSignal }): Promise<ReportAnswer>;
}

export interface ReporterDeps {
  nodeId: string;
  sources: readonly DeviceSource[];
  registry: DeviceRegistry;
  health: HealthMonitor;
  settings: DecorateSettings;
  machine: { collect(): Promise<Machine> };
  cloud: ReportSink;
  unplugged: UnpluggedLedger;
  /** Where the delivered device set is kept across restarts; none for a dry run. */
  reported?: ReportedStore;
  stats: AgentStats;
  logger: Logger;
  clock: Clock;
}

/** One report to make, as the planner (or a one-shot command) decided it. */
export interface ReportPlan {
  request: CollectRequest;
  /** Why: the planner's triggers, for the log. */
  reason: string;
  /** Whether every source's listing can be taken as complete: only then is an absent device gone. */
  complete: boolean;
  /** Epoch ms after which no retry of this report may start (the next scheduled report). */
  deadline: number;
}

export type ReportOutcome =
  | { delivered: true; failedDevices: FailedDevice[]; body: ReportBody; sent: string[] }
  | { delivered: false; error: Error; failure: Failure; body?: ReportBody };

/**
 * One report, in one direction: collect (every source) → health → decorate
 * → compose with the UNPLUGGED records still owed → PUT; the outcome goes
 * back to the caller. It decides nothing about timing: when to report, and
 * what to inventory, is the planner's.
 */
export class Reporter {
  constructor(private readonly deps: ReporterDeps) {}

  /** The devices present now, health rules and settings applied, sources in registration order. */
  async inventory(request: CollectRequest): Promise<DeviceInfo[]> {
    const { deps } = this;
    const collected = await Promise.all(deps.sources.map((s) => s.collect(request)));
    deps.stats.noteDevices(deps.registry.list('android').map((r) => r.state));
    return deps.health.apply(collected.flat(), deps.registry).map((info) => decorate(info, deps.settings));
  }

  /** The body a report would carry now, without sending it (a dry run). */
  async compose(plan: ReportPlan): Promise<ReportBody> {
    const [devices, machine] = await Promise.all([this.inventory(plan.request), this.deps.machine.collect()]);
    // The one place a body is composed, so the one place it is made clean:
    // the devices before the ledger sees them, so that it keys them by the
    // udids the cloud knows, and the body once more for what the ledger adds.
    return cleanStrings({ nodeId: this.deps.nodeId, machine, devices: this.deps.unplugged.compose(cleanStrings(devices), plan.complete) });
  }

  async send(plan: ReportPlan, signal?: AbortSignal): Promise<ReportOutcome> {
    const { deps } = this;
    const now = () => deps.clock.wall();
    const started = now();
    let body: ReportBody | undefined;
    try {
      body = await this.compose(plan);
      deps.stats.lastInventoryDurationMs = now() - started;
      // Kept before the PUT too: a crash between the cloud storing the report
      // and the write after it must not leave a device the cloud shows online
      // unknown to the next start.
      deps.reported?.save(union(deps.unplugged.current, body.devices));
      const answer = await deps.cloud.putDevices(body, { deadline: plan.deadline, signal });
      deps.stats.reportsSent++;
      deps.stats.lastSuccessAt = now();
      deps.unplugged.delivered(body.devices, plan.complete);
      deps.reported?.save(deps.unplugged.current);
      const sent = body.devices.filter((d) => d.status !== STATUS_UNPLUGGED).map((d) => d.udid);
      deps.logger.info(
        { reason: plan.reason, devices: sent.length, unplugged: body.devices.length - sent.length, failedDevices: answer.failedDevices.length, ms: now() - started },
        'report delivered',
      );
      return { delivered: true, failedDevices: answer.failedDevices, body, sent };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      deps.stats.reportsFailed++;
      deps.stats.lastFailure = error.message;
      return { delivered: false, error, failure: failureOf(error), body };
    }
  }
}

/** The devices last delivered plus the present ones of a report about to go out. */
function union(reported: DeviceInfo[], sending: DeviceInfo[]): DeviceInfo[] {
  const byUdid = new Map(reported.map((d) => [d.udid, d]));
  for (const d of sending) if (d.status !== STATUS_UNPLUGGED) byUdid.set(d.udid, d);
  return [...byUdid.values()];
}

/** How timing treats a report that was not delivered. */
export function failureOf(error: Error): Failure {
  if (error instanceof CloudAuthError) return 'auth';
  if (error instanceof CloudRejectedError) return 'rejected';
  return 'transient';
}

/** One log line for a report that was not delivered, saying when it goes out again. */
export function logNotDelivered(logger: Logger, error: Error, resendInMs: number | undefined): void {
  const hint = error instanceof CloudError ? '' : ' (the inventory itself failed)';
  const when =
    resendInMs === undefined
      ? 'it is sent again at the next scheduled report (resending the same report cannot help)'
      : `the current inventory is sent again in ${Math.round(resendInMs / 1000)} s or at the next scheduled report`;
  logger.error({ err: error.message, resendInMs }, `report not delivered${hint}; ${when}`);
}

/** One warning per device the cloud did not store, with what to do. */
export function logFailedDevices(logger: Logger, failed: readonly FailedDevice[], unsent: readonly FailedDevice[] = []): void {
  for (const f of failed) {
    logger.warn({ udid: f.udid, cloudMessage: f.message }, `the cloud did not store device ${f.udid}: ${f.message}. ${adviceFor(f.message)}`);
  }
  for (const f of unsent) {
    logger.warn(
      { udid: f.udid, cloudMessage: f.message },
      `the cloud named device ${f.udid} in failedDevices although the report did not carry it; ignored (nothing to retry)`,
    );
  }
}

import { STATUS_UNPLUGGED } from '../cloud/types.js';
import { CloudAuthError, CloudError, CloudRejectedError } from '../cloud/errors.js';
import { adviceFor } from '../cloud/failed-devices.js';
import type { DeviceInfo, FailedDevice, Machine, ReportAnswer, ReportBody } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import type { CollectRequest } from '../agent/collector.js';
import type { Failure } from '../timing/planner.js';
import { type UnpluggedLedger } from './unplugged.js';
import type { ReportedStore } from './reported-store.js';
import type { AgentStats } from '../agent/stats.js';

export interface ReportSink {
  putDevices(body: ReportBody, options?: { deadline?: number; signal?: AbortSignal }): Promise<ReportAnswer>;
}

export interface ReporterDeps {
  nodeId: string;
  collectDevices: (request: CollectRequest) => Promise<DeviceInfo[]>;
  collectMachine: () => Promise<Machine>;
  cloud: ReportSink;
  unplugged: UnpluggedLedger;
  /** False while adb has not listed its devices yet: absent devices are then not marked UNPLUGGED. */
  adbListed?: () => boolean;
  /** Where the delivered device set is kept across restarts; none for a dry run. */
  reported?: ReportedStore;
  stats: AgentStats;
  logger: Logger;
  /** Epoch ms after which no retry of this report may start (the next scheduled report). */
  deadline: () => number;
  now?: () => number;
}

export type ReportOutcome =
  | { delivered: true; failedDevices: FailedDevice[]; body: ReportBody; sent: string[] }
  | { delivered: false; error: Error; failure: Failure; body?: ReportBody };

/**
 * Sends one report: collects, composes it with the UNPLUGGED records still
 * owed, PUTs it and returns what happened. It decides nothing about timing:
 * when to report, and what to probe, is the planner's.
 */
export class Reporter {
  constructor(private readonly deps: ReporterDeps) {}

  async send(request: CollectRequest, reason: string, signal?: AbortSignal): Promise<ReportOutcome> {
    const { deps } = this;
    const now = deps.now ?? Date.now;
    const started = now();
    let body: ReportBody | undefined;
    try {
      const [devices, machine] = await Promise.all([deps.collectDevices(request), deps.collectMachine()]);
      deps.stats.lastInventoryDurationMs = now() - started;
      const complete = deps.adbListed?.() ?? true;
      body = { nodeId: deps.nodeId, machine, devices: deps.unplugged.compose(devices, complete) };
      // Kept before the PUT too: a crash between the cloud storing the report
      // and the write after it must not leave a device the cloud shows online
      // unknown to the next start.
      deps.reported?.save(union(deps.unplugged.current, body.devices));
      const answer = await deps.cloud.putDevices(body, { deadline: deps.deadline(), signal });
      deps.stats.reportsSent++;
      deps.stats.lastSuccessAt = now();
      deps.stats.lastReportDurationMs = now() - started;
      deps.unplugged.delivered(body.devices, complete);
      deps.reported?.save(deps.unplugged.current);
      deps.logger.info(
        { reason, devices: body.devices.length, failedDevices: answer.failedDevices.length, ms: now() - started },
        'report delivered',
      );
      const sent = body.devices.filter((d) => d.status !== STATUS_UNPLUGGED).map((d) => d.udid);
      return { delivered: true, failedDevices: answer.failedDevices, body, sent };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      deps.stats.reportsFailed++;
      deps.stats.lastFailureAt = now();
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

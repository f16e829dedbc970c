import { CloudAuthError, CloudError } from '../cloud/errors.js';
import type { FailedDevicePolicy } from '../cloud/failed-devices.js';
import { adviceFor } from '../cloud/failed-devices.js';
import type { DeviceInfo, FailedDevice, Machine, ReportAnswer, ReportBody } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import type { Refresh } from './collector.js';
import type { AgentStats } from './stats.js';
import type { UnpluggedLedger } from './unplugged.js';

export interface ReportSink {
  putDevices(body: ReportBody, options?: { deadline?: number; signal?: AbortSignal }): Promise<ReportAnswer>;
}

export interface ReporterDeps {
  nodeId: string;
  collectDevices: (refresh: Refresh) => Promise<DeviceInfo[]>;
  collectMachine: () => Promise<Machine>;
  cloud: ReportSink;
  failed: FailedDevicePolicy;
  unplugged: UnpluggedLedger;
  stats: AgentStats;
  logger: Logger;
  /** Epoch ms after which no retry of this report may start (the next scheduled report). */
  deadline: () => number;
  /** Called after each report with when the next follow-up is wanted (resend or failed-device retry). */
  onFollowUp?: (at: number, reason: string) => void;
  now?: () => number;
}

export type ReportOutcome =
  | { delivered: true; failedDevices: FailedDevice[]; body: ReportBody }
  | { delivered: false; error: Error; body?: ReportBody };

interface Pending {
  reasons: Set<string>;
  refresh: Refresh;
  promise: Promise<ReportOutcome>;
  resolve: (outcome: ReportOutcome) => void;
}

/**
 * Sends reports one at a time. A report asked for while one runs is
 * coalesced into a single follow-up that collects afresh, so the latest state
 * wins and nothing piles up.
 */
export class Reporter {
  private running: Promise<ReportOutcome> | undefined;
  private pending: Pending | undefined;
  private resendDelayMs = 0;

  constructor(private readonly deps: ReporterDeps) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  request(reason: string, refresh: Refresh = 'all'): Promise<ReportOutcome> {
    if (!this.running) return this.start(new Set([reason]), refresh);
    if (this.pending) {
      this.pending.reasons.add(reason);
      this.pending.refresh = mergeRefresh(this.pending.refresh, refresh);
      return this.pending.promise;
    }
    let resolve!: (outcome: ReportOutcome) => void;
    const promise = new Promise<ReportOutcome>((r) => (resolve = r));
    this.pending = { reasons: new Set([reason]), refresh, promise, resolve };
    return promise;
  }

  /** Resolves when no report is running or queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private start(reasons: Set<string>, refresh: Refresh): Promise<ReportOutcome> {
    const run = this.run(reasons, refresh).finally(() => {
      this.running = undefined;
      const next = this.pending;
      this.pending = undefined;
      if (next) void this.start(next.reasons, next.refresh).then(next.resolve);
    });
    this.running = run;
    return run;
  }

  private async run(reasons: Set<string>, refresh: Refresh): Promise<ReportOutcome> {
    const { deps } = this;
    const now = deps.now ?? Date.now;
    const started = now();
    const reason = [...reasons].join(', ');
    let body: ReportBody | undefined;
    try {
      const [devices, machine] = await Promise.all([deps.collectDevices(refresh), deps.collectMachine()]);
      deps.stats.lastInventoryDurationMs = now() - started;
      body = { nodeId: deps.nodeId, machine, devices: deps.unplugged.compose(devices) };
      const answer = await deps.cloud.putDevices(body, { deadline: deps.deadline() });
      this.delivered(body, answer, now());
      deps.stats.lastReportDurationMs = now() - started;
      deps.logger.info(
        { reason, devices: body.devices.length, failedDevices: answer.failedDevices.length, ms: now() - started },
        'report delivered',
      );
      return { delivered: true, failedDevices: answer.failedDevices, body };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.notDelivered(error, now());
      return { delivered: false, error, body };
    }
  }

  private delivered(body: ReportBody, answer: ReportAnswer, at: number): void {
    const { deps } = this;
    deps.stats.reportsSent++;
    deps.stats.lastSuccessAt = at;
    deps.unplugged.delivered(body.devices);
    this.resendDelayMs = 0;
    const result = deps.failed.record(
      body.devices.map((d) => d.udid),
      answer.failedDevices,
      at,
    );
    for (const f of result.newlyFailed) {
      deps.logger.warn({ udid: f.udid, cloudMessage: f.message }, `the cloud did not store device ${f.udid}: ${f.message}. ${adviceFor(f.message)}`);
    }
    for (const udid of result.recovered) deps.logger.info({ udid }, `the cloud stored device ${udid} again`);
    const retryAt = deps.failed.nextRetryAt();
    if (retryAt !== undefined) deps.onFollowUp?.(retryAt, 'failed-device retry');
  }

  private notDelivered(error: Error, at: number): void {
    const { deps } = this;
    deps.stats.reportsFailed++;
    deps.stats.lastFailureAt = at;
    deps.stats.lastFailure = error.message;
    if (error instanceof CloudAuthError) {
      // Fix the credentials, then the next scheduled report goes out: no retry storm.
      deps.logger.error({ err: error.message }, 'report not delivered; it will be sent again at the next scheduled report');
      return;
    }
    const hint = error instanceof CloudError ? '' : ' (the inventory itself failed)';
    this.resendDelayMs = Math.min(30_000, this.resendDelayMs ? this.resendDelayMs * 2 : 5_000);
    deps.logger.error(
      { err: error.message, resendInMs: this.resendDelayMs },
      `report not delivered${hint}; the current inventory is sent again in ${Math.round(this.resendDelayMs / 1000)} s or at the next scheduled report`,
    );
    deps.onFollowUp?.(at + this.resendDelayMs, 'resend after failure');
  }
}

function mergeRefresh(a: Refresh, b: Refresh): Refresh {
  if (a === 'all' || b === 'all') return 'all';
  return new Set([...a, ...b]);
}

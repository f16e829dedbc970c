// One report at a time, from the plan handed out to its outcome heard: what the readings say meanwhile is heard once
// the report has ended (no event re-enters the loop mid-report), the outcome goes back to the planner, and a report not
// delivered is logged once per way it fails.
import { CloudError, CloudRejectedError } from '../cloud/errors.js';
import { failureWay } from '../cloud/failure-way.js';
import { STATUS_UNPLUGGED, type DeviceInfo } from '../cloud/types.js';
import { UnsentAnswers } from '../cloud/unsent-answers.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import type { PlannedReport, ReportPlanner } from '../timing/planner.js';
import type { Clock, Timer, Timers } from '../util/clock.js';
import { capitalized, sentence } from '../util/sentence.js';
import { logFailedDevices, type ReportOutcome, type Reporter } from './reporter.js';
import type { UnpluggedLedger } from './unplugged.js';
import { errorText } from '../util/error-text.js';

/**
 * A report that keeps failing the same way is logged when it starts, when the way changes (failure-way.ts), and else at
 * most once per REPORT_FAILURE_LOG_MS with the count; the attempts between at debug (README's log section).
 */
export const REPORT_FAILURE_LOG_MS = 600_000;

export interface ReportRunDeps {
  planner: ReportPlanner;
  reporter: Pick<Reporter, 'send' | 'waitingOn'>;
  unplugged: UnpluggedLedger;
  logger: Logger;
  clock: Clock & Timers;
  /** The report ended, whatever its outcome: the loop looks at the planner again. */
  ended: () => void;
}

export class ReportRun {
  private inFlight: Promise<void> | undefined;
  /** A report is being built (from the plan handed out to its outcome): what the readings say meanwhile waits (afterReport). */
  private building = false;
  /** What afterReport held while the report was built, each once, in the order first heard. */
  private readonly held = new Set<() => void>();
  private readonly abort = new AbortController();
  private waiters: Array<(outcome: ReportOutcome | undefined) => void> = [];
  /** The answers naming devices not sent that were already logged (bounded). */
  private readonly unsentAnswers = new UnsentAnswers();
  private stopping = false;
  /** The devices of the last report, health applied: the per-device rows and metrics. */
  private last: DeviceInfo[] = [];
  /** The run of failed reports going on: its kind (the failure class and way), its size, and when it was last logged. */
  private failing: { kind: string; way: string; count: number; loggedAt: number; held: number } | undefined;

  constructor(private readonly deps: ReportRunDeps) {}

  /** The devices of the last report, UNPLUGGED ones left out. */
  get lastDevices() {
    return this.last;
  }

  /** Whether a report is being built now: the plan handed out, its outcome not yet heard. */
  get reporting() {
    return this.building;
  }

  /** The outcome of the next report made for a request (SIGHUP, tests); undefined if the agent stops first. */
  awaitRequested() {
    return new Promise<ReportOutcome | undefined>((r) => this.waiters.push(r));
  }

  /** Runs `heard` now or, mid-report, once it has ended: readings written meanwhile neither re-arm the loop nor wake actions. */
  afterReport(heard: () => void) {
    if (this.building) this.held.add(heard);
    else heard();
  }

  /** Carries out the plan the timer handed out; the outcome goes back to the planner. */
  fire(plan: PlannedReport) {
    const waiters = plan.triggers.includes('requested') ? this.waiters.splice(0) : [];
    this.building = true;
    this.inFlight = this.deps.reporter
      .send(plan, this.abort.signal)
      .then((outcome) => {
        this.finished(outcome);
        for (const w of waiters) w(outcome);
      })
      .catch((err: unknown) => {
        // send() returns its failures; anything thrown here is a bug, but it must not stop the reports.
        this.deps.planner.finished({ delivered: false, failure: 'transient' }, this.now());
        limited(this.deps.logger).error('report-unexpected-failure', { err: errorText(err) }, 'unexpected failure while reporting; the agent keeps running');
        for (const w of waiters) w(undefined);
      })
      .finally(() => {
        this.inFlight = undefined;
        this.building = false;
        const held = [...this.held];
        this.held.clear();
        for (const heard of held) heard();
        this.deps.ended();
      });
  }

  /** No report is handed out any more: a failure from now on is the stop's, not worth a line. */
  stop() {
    this.stopping = true;
  }

  /** Lets the report in flight finish within `limitMs`, then aborts it; whoever awaits a requested report hears none. */
  async settle(limitMs: number) {
    const { logger, clock } = this.deps;
    if (this.inFlight) {
      logger.info('waiting for the report in flight to finish');
      let timer: Timer | undefined;
      const timedOut = await Promise.race([this.inFlight.then(() => false), new Promise<boolean>((r) => (timer = clock.setTimer(() => r(true), limitMs)))]);
      timer?.cancel();
      if (timedOut) {
        // Read before the abort: what it was still waiting for when time ran out.
        const waiting = this.deps.reporter.waitingOn();
        logger.warn(
          `the report in flight did not finish within ${limitMs / 1000} s` +
            (waiting === undefined ? '' : `: it was still waiting for ${waiting}`) +
            '; it is abandoned and sent again at the next start',
        );
        this.abort.abort(new Error('the agent is stopping'));
      }
    }
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  private now() {
    return this.deps.clock.monotonic();
  }

  /**
   * The first failure of a run, a new way of failing, or one line per REPORT_FAILURE_LOG_MS with the count, saying when
   * the report goes out again; the rest at debug.
   */
  private notDelivered({ error, failure, retryAfterMs }: Extract<ReportOutcome, { delivered: false }>, notes: { resendAt?: number }, now: number) {
    const way = failureWay(error);
    const kind = `${failure}/${way}`;
    const f = this.failing;
    // Reports in a row not delivered, whatever the way (the planner's backoff counts only those worth resending).
    const failures = (f?.count ?? 0) + 1;
    if (f?.kind === kind && now - f.loggedAt < REPORT_FAILURE_LOG_MS) {
      f.count++;
      f.held++;
      this.deps.logger.debug({ err: error.message, failures }, 'report not delivered again, the same way');
      return;
    }
    // Failures of the same kind since the last such line, not logged each.
    const heldBack = f?.kind === kind ? f.held : 0;
    // The way it failed before this one, when this report failed another way (src/cloud/failure-way.ts).
    const changed = f && f.kind !== kind ? { was: f.way, now: way } : undefined;
    this.failing = { kind, way, count: failures, loggedAt: now, held: 0 };
    const resendInMs = notes.resendAt === undefined ? undefined : Math.round(notes.resendAt - now);
    const hint = error instanceof CloudError ? '' : ' (the inventory itself failed)';
    let when: string;
    const refused = failure !== 'transient';
    if (refused) when = 'it is sent again with the next scheduled report (resending the same report cannot help)';
    else if (resendInMs !== undefined)
      when = `the current inventory is sent again in about ${Math.round(resendInMs / 1000)} s, or with the next scheduled report`;
    else when = 'the next scheduled report carries the current inventory';
    if (retryAfterMs !== undefined) when += `; the cloud asked for ${Math.round(retryAfterMs / 1000)} s of quiet (Retry-After), so no report goes before that`;
    const row =
      failures > 1
        ? ` (${failures} in a row${heldBack ? `; ${heldBack} of them not logged since the last such line, at most one every ${REPORT_FAILURE_LOG_MS / 60_000} min` : ''})`
        : '';
    const other = changed ? `; it fails another way now: ${changed.now} (before: ${changed.was})` : '';
    // A refusal (401, 403, another 4xx) says what to check in its own text: the line says it, then what happens next.
    // Settings (the credentials, the base URL) are read at start: fixed, they take a restart.
    if (refused)
      when =
        failure === 'auth' || (error instanceof CloudRejectedError && error.status === 404)
          ? `fix the setting it names and restart the agent (settings are read at start); until then each scheduled report is sent and refused the same way, and /healthz says so`
          : `${when}; /healthz says so until a report is delivered`;
    const head = `report not delivered${hint}${row}${other}`;
    limited(this.deps.logger).error(
      'report-not-delivered',
      { err: error.message, way: changed?.now, wasWay: changed?.was, resendInMs, retryAfterMs, failures, heldBack: heldBack || undefined },
      refused ? `${head}: ${sentence(error.message)} ${capitalized(when)}` : `${head}; ${when}`,
    );
  }

  private finished(outcome: ReportOutcome) {
    const now = this.now();
    const { planner, logger, unplugged } = this.deps;
    if (outcome.body) this.last = outcome.body.devices.filter((d) => d.status !== STATUS_UNPLUGGED);
    const notes = planner.finished(outcome, now);
    // A report for adb's list settling is owed only while some device reported before has not been seen since.
    if (!unplugged.awaitingSettle) planner.settleNotNeeded();
    if (!outcome.delivered) {
      if (!this.stopping) this.notDelivered(outcome, notes, now);
      return;
    }
    this.failing = undefined;
    const unsent = this.unsentAnswers.toLog(notes.unsent);
    logFailedDevices(logger, notes.newlyFailed, unsent);
    for (const udid of notes.recovered) limited(logger).info('cloud-stored-again', { udid }, `the cloud stored device ${udid} again`, udid);
  }
}

import { LimitedLog } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import type { Clock, Timer, Timers } from '../util/clock.js';
import { FLAP_RULES, FlapLedger, type FlapLine } from './flapping.js';

// The device-change lines, with a flapping phone summed up (flapping.ts) on the injected clock's timer, each line
// rate-limited per cause so that a hub resetting 200 phones writes a bounded number of lines too.

export class FlapLog {
  private readonly ledger = new FlapLedger();
  private readonly log: LimitedLog;
  private timer: Timer | undefined;
  private timerAt: number | undefined;
  /** Changes logged one by one (loud) and quietly since the last takeNews(). */
  private loud = 0;
  private quiet = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock & Timers,
  ) {
    // Its summaries on the injected timers too: due on virtual time, they come on virtual time.
    this.log = new LimitedLog(logger, { clock });
  }

  /** A source's changes: each one logged, or summed up while its phone flaps. */
  changed(changes: readonly { serial: string; from?: string; to?: string }[]) {
    const now = this.clock.monotonic();
    for (const c of changes) for (const line of this.ledger.note(c, now)) this.write(line);
    this.rearm();
  }

  /** Whether the changes since the last call are news for a report's log line: only a flapping phone's are not. */
  takeNews() {
    const news = this.loud > 0 || this.quiet === 0;
    this.loud = 0;
    this.quiet = 0;
    return news;
  }

  stop() {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = undefined;
    this.log.flush();
  }

  private write(line: FlapLine) {
    const { serial } = line;
    if (line.kind === 'change') {
      const fields = { serial, from: line.from ?? 'absent', to: line.to ?? 'unplugged' };
      if (line.quiet) {
        this.quiet++;
        this.logger.debug(fields, 'device changed');
      } else {
        this.loud++;
        this.log.info('device-changed', fields, 'device changed', serial);
      }
      return;
    }
    const minutes = Math.max(1, Math.round(line.ms / 60_000));
    const now = line.state ?? 'unplugged';
    const fields = { serial, changes: line.changes, minutes, state: now };
    if (line.kind === 'settled') {
      this.log.info(
        'device-settled',
        fields,
        `device ${serial} settled: no state change for ${Math.round(FLAP_RULES.windowMs / 60_000)} min (now ${now}); ` +
          `it changed state ${line.changes} times over ${minutes} min while flapping`,
        serial,
      );
      return;
    }
    const every = Math.round(FLAP_RULES.summaryMs / 60_000);
    const tail =
      line.kind === 'flapping'
        ? `; its further changes are logged at debug, summed up here at most every ${every} min until it has been quiet for ${Math.round(FLAP_RULES.windowMs / 60_000)} min`
        : '';
    this.log.warn(
      'device-flapping',
      fields,
      `device ${serial} changed state ${line.changes} times in the last ${minutes} min (now ${now}): ${culprit(serial)}${tail}`,
      serial,
    );
  }

  /** One timer, at the next line due. */
  private rearm() {
    const at = this.ledger.nextDueAt();
    if (at === this.timerAt) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = at;
    if (at === undefined) return;
    this.timer = this.clock.setTimer(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        for (const line of this.ledger.due(this.clock.monotonic())) this.write(line);
        this.rearm();
      },
      Math.max(0, Math.ceil(at - this.clock.monotonic())),
      { unref: true },
    );
  }
}

/** Whom to suspect: the phone or its link, named by how it is attached (adb's HOST:PORT serial is a network phone). */
function culprit(serial: string): string {
  return /:\d+$/.test(serial)
    ? 'the phone or its network link is unstable, not the agent; check its Wi-Fi and address, or whether it is boot-looping'
    : 'the phone or its USB link is unstable, not the agent; check its cable and hub port, or whether it is boot-looping';
}

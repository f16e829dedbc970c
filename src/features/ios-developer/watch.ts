// Watches the host's iOS 17 tunnel daemons: polls each one's listing on the
// injected clock's timers (and at once when asked: a phone reconnected),
// keeps what each answered last, and dates its tunnels in the ledger
// (tunnel-state.ts). A daemon that stops answering, refuses or answers
// garbage is one line when it starts and one when it is back; a daemon never
// seen since the agent started is one debug line (a lab runs one of the two
// kinds, and both default addresses are watched). Reads only: never starts,
// refreshes or deletes a tunnel.
import { http } from '../../util/node-http.js';
import type { Logger } from '../../log/logger.js';
import { limited } from '../../log/limited.js';
import { every, type Clock, type Timer, type Timers } from '../../util/clock.js';
import { DAEMON_NAME, LISTING_PATH, parseListing } from './daemons.js';
import { TunnelLedger, type DaemonNow, type DaemonRef, type PhoneNow } from './tunnel-state.js';

/** What one GET answered: the status and the body, or why there was no answer. */
export type HttpAnswer = { status: number; body: string } | { error: string };

/** One GET of a URL, bounded; the real one is `httpGet`. */
export type Fetch = (url: string, timeoutMs: number) => Promise<HttpAnswer>;

/** A listing larger than this is not a host's: cut, and read as garbage. */
const MAX_BODY = 1 << 20;
export const DAEMON_TIMEOUT_MS = 2_000;

export const httpGet: Fetch = (url, timeoutMs) =>
  new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy(new Error(`answered more than ${MAX_BODY} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code === 'ECONNREFUSED' ? 'connection refused' : err.message }));
  });

export interface DaemonWatchOptions {
  daemons: readonly DaemonRef[];
  pollMs: number;
  clock: Clock & Timers;
  logger: Logger;
  /** The phones usbmuxd lists now, with their connection (tunnel-state.ts), read at each poll. */
  phones: () => PhoneNow[];
  /** Each poll ended: what it read may change what is said of the phones. */
  polled?: () => void;
  fetch?: Fetch;
}

export class DaemonWatch {
  readonly ledger = new TunnelLedger();
  private now: DaemonNow[];
  private timer: Timer | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  /** Each daemon's last state said, so that a change is said once. */
  private readonly said = new Map<string, string>();

  constructor(private readonly o: DaemonWatchOptions) {
    this.now = o.daemons.map((d) => ({ ...d, state: 'down', why: 'not asked yet' }));
  }

  /** The daemons as the last poll found them. */
  daemons(): readonly DaemonNow[] {
    return this.now;
  }

  start() {
    if (this.timer || this.o.daemons.length === 0) return;
    void this.poll();
    this.timer = every(this.o.clock, this.o.pollMs, () => void this.poll(), { unref: true });
  }

  stop() {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Polls now (once more after a poll in flight): a phone came back, and its tunnel is to be read before the next report. */
  poll() {
    if (this.polling) {
      this.again = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.again = false;
        await this.pollOnce();
      } while (this.again);
    })().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async pollOnce() {
    const now = await Promise.all(this.o.daemons.map((d) => this.read(d)));
    this.now = now;
    this.o.logger.debug({ daemons: now.map((d) => `${d.id}: ${d.state}`) }, 'iOS tunnel daemons polled');
    // Said before the ledger hears this poll: whether a daemon answered before is the ledger's word (everUp).
    for (const d of now) this.say(d);
    this.ledger.observe(now, this.o.phones());
    this.o.polled?.();
  }

  private async read(d: DaemonRef): Promise<DaemonNow> {
    const answer = await (this.o.fetch ?? httpGet)(`${d.url.replace(/\/$/, '')}${LISTING_PATH[d.kind]}`, DAEMON_TIMEOUT_MS);
    if ('error' in answer) return { ...d, state: 'down', why: answer.error };
    if (answer.status !== 200) return { ...d, state: 'refusing', why: `HTTP ${answer.status}${firstLine(answer.body)}` };
    const listing = parseListing(d.kind, answer.body);
    if (!listing.ok) return { ...d, state: 'garbage', why: listing.why };
    if (listing.unread > 0) this.o.logger.debug({ daemon: d.id, unread: listing.unread }, 'iOS tunnel daemon listed entries that do not read; left out');
    return { ...d, state: 'up', tunnels: listing.tunnels };
  }

  private say(d: DaemonNow) {
    const before = this.said.get(d.id);
    const state = d.state === 'up' ? 'up' : `${d.state}: ${d.why}`;
    this.said.set(d.id, state);
    if (before === state) return;
    const { name, start } = DAEMON_NAME[d.kind];
    if (d.state === 'up') {
      const wasUp = this.ledger.everUp.has(d.id);
      if (before !== undefined)
        limited(this.o.logger).info(
          'ios-tunnel-daemon',
          { daemon: d.id },
          `${name} at ${d.url} answers${wasUp ? ' again' : ''}: the iPhones' tunnels are read from it`,
          d.id,
        );
      return;
    }
    if (!this.ledger.everUp.has(d.id)) {
      // Never seen answering: a lab runs one kind of daemon, and both default addresses are watched. Something that
      // answers there, but not as the daemon, is said once.
      if (d.state === 'down') this.o.logger.debug({ daemon: d.id, why: d.why }, `${name} at ${d.url}: not answering (${d.why})`);
      else
        limited(this.o.logger).info(
          'ios-tunnel-daemon',
          { daemon: d.id, state: d.state, why: d.why },
          `something answers at ${d.url}, but not as ${name} (${d.why}): its tunnels are not read`,
          d.id,
        );
      return;
    }
    const what =
      d.state === 'down'
        ? `does not answer (${d.why}): the iPhones' iOS 17 tunnels it kept are unknown; restart it: ${start}`
        : d.state === 'refusing'
          ? `refuses its listing (${d.why}): restart it, or point iosDeveloper.tunnelDaemons at the daemon`
          : `answers its listing with what it never writes (${d.why}): is ${name} what listens at that address?`;
    // Through the per-cause limit: a daemon flapping up and down is a few lines a minute and a summary, not two a poll.
    limited(this.o.logger).warn('ios-tunnel-daemon', { daemon: d.id, state: d.state, why: d.why }, `${name} at ${d.url} ${what}`, d.id);
  }
}

/** The first line of an error answer, clipped, as data. */
function firstLine(body: string) {
  const line = body.split('\n', 1)[0]!.trim().slice(0, 80);
  return line ? `: ${JSON.stringify(line)}` : '';
}

// The phones this host's adb authorization is followed for, kept across
// restarts in the state directory (adb-authorizations.json): each phone's
// last time seen ready, the window it keeps the key for, and whether its
// absence was said. At each report it is stepped (lapse.ts): what is due is
// said once, one warning line each; the file is written when something a
// restart must not lose changed, and at most hourly for the times seen.
// A file that does not read is one warning and a fresh start (each phone
// is followed again from its next report).
import type { Logger } from '../../log/logger.js';
import { StateFile } from '../../config/state-file.js';
import { jsonObject } from '../../util/json-object.js';
import { step, type AuthEntry, type Due, type SeenPhone } from './lapse.js';

/** While nothing else changes, the times seen are written at most this often (a crash loses at most this much). */
const SAVE_EVERY_MS = 3_600_000;
const HOUR = 3_600_000;

export interface AuthLedgerOptions {
  /** The state file; none: kept in memory only. */
  file: string | undefined;
  leadMs: number;
  wall: () => number;
  logger: Logger;
}

export class AuthLedger {
  private entries = new Map<string, AuthEntry>();
  private savedAt = Number.NEGATIVE_INFINITY;
  private readonly file: StateFile<Iterable<AuthEntry>> | undefined;

  constructor(private readonly o: AuthLedgerOptions) {
    this.file =
      o.file === undefined
        ? undefined
        : new StateFile<Iterable<AuthEntry>>(
            o.file,
            {
              what: 'the phones away from this host',
              maxBytes: 2 * 1024 * 1024,
              parse: (text) => {
                const phones = jsonObject(text)?.phones;
                return Array.isArray(phones) ? phones.filter(isEntry) : undefined;
              },
              text: (phones) => JSON.stringify({ savedAt: new Date(o.wall()).toISOString(), phones: [...phones] }) + '\n',
              lost: 'the phones away are followed again from their next report',
              unsaved: 'after a restart, one away now is warned about only from what the restart sees',
            },
            o.logger,
          );
  }

  load() {
    for (const p of this.file?.load() ?? []) this.entries.set(p.udid, p);
  }

  /** One report: the phones it lists ready, each with the window its inventory read (facts.authorizationWindowMs). */
  seen(phones: readonly SeenPhone[]) {
    const now = this.o.wall();
    const r = step(this.entries, phones, now, this.o.leadMs);
    this.entries = r.entries;
    for (const due of r.due) this.say(due, now);
    if (r.changed || now - this.savedAt >= SAVE_EVERY_MS) this.save(now);
  }

  /** Phones away whose lapse is within the lead, and those whose lapse passed, for /metrics. */
  counts() {
    const now = this.o.wall();
    let lapsing = 0;
    let lapsed = 0;
    for (const e of this.entries.values()) {
      if (e.present || e.windowMs === 0) continue;
      const at = e.lastSeenWall + e.windowMs;
      if (now >= at) lapsed++;
      else if (now >= at - this.o.leadMs) lapsing++;
    }
    return { lapsing, lapsed };
  }

  /** The lapse a phone back in an unauthorized state met while away, if it did, by its udid or else its adb serial: for its message. */
  lapsedOf(udid: string | undefined, serial: string) {
    const e = (udid === undefined ? undefined : this.entries.get(udid)) ?? [...this.entries.values()].find((x) => x.serial === serial);
    return e && e.windowMs !== 0 && !e.present && this.o.wall() >= e.lastSeenWall + e.windowMs ? e : undefined;
  }

  private say(due: Due, now: number) {
    const { entry, kind, lapsesAt } = due;
    const since = new Date(entry.lastSeenWall).toISOString();
    const at = new Date(lapsesAt).toISOString();
    const keeps = `it keeps this host's adb authorization for ${duration(entry.windowMs)} after this host last had it connected (its adb_allowed_connection_time)`;
    const then = `someone must tap "Allow" on "Allow USB debugging?" when it is back; "Disable adb authorization timeout" in Developer options keeps it for good`;
    const drops =
      kind === 'lapsing' ? `so it drops it at ${at}, in ${duration(lapsesAt - now)}: plug it in before then, or ${then}` : `and dropped it at ${at}: ${then}`;
    const line = `phone ${entry.udid} (adb serial ${entry.serial}) has been away from this host since ${since}: ${keeps}, ${drops}`;
    this.o.logger.warn({ udid: entry.udid, serial: entry.serial, lastSeen: since, lapsesAt: at }, line);
  }

  private save(now: number) {
    if (this.file?.save(this.entries.values())) this.savedAt = now;
  }
}

function duration(ms: number) {
  if (ms >= 2 * 24 * HOUR) return `${Math.round(ms / (24 * HOUR))} days`;
  if (ms >= 2 * HOUR) return `${Math.round(ms / HOUR)} h`;
  return `${Math.max(1, Math.round(ms / 60_000))} min`;
}

function isEntry(v: unknown): v is AuthEntry {
  const e = v as Partial<AuthEntry> | null;
  const said = e?.said;
  return (
    typeof e?.udid === 'string' &&
    e.udid.length <= 256 &&
    typeof e.serial === 'string' &&
    e.serial.length <= 256 &&
    Number.isFinite(e.lastSeenWall) &&
    Number.isFinite(e.windowMs) &&
    typeof e.present === 'boolean' &&
    (said === undefined || (typeof said.for === 'number' && (said.kind === 'lapsing' || said.kind === 'lapsed')))
  );
}

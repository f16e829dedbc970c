// When a phone away from this host will lose the host's adb authorization,
// and when to say so: pure, on the caller's wall clock.
//
// How the phone decides (AOSP frameworks/base AdbDebuggingManager): a key
// the user allowed "always" is kept with its last connection time, set when
// the host connects, every day while it stays connected, and when it
// disconnects; `isKeyAuthorized` lets it in while `now < lastConnectionTime
// + adb_allowed_connection_time` (a week by default, 0: never lapses), and
// the keystore job removes it from adb_keys at that moment. So the time
// counts from when the host last had the phone connected, which the agent
// sees as the last report that listed it ready: `lastSeenWall`.
//
// Each absence is said once: a warning when less than `leadMs` is left
// (or, if the agent was not running then, one line that it lapsed), kept in
// `said` across restarts by the caller's state file. A phone never seen
// with its window read is not followed (unknown); one whose window is 0
// never lapses; a negative one (the framework lets no key in then) lapses
// when it leaves.

export interface AuthEntry {
  udid: string;
  /** adb's serial when last seen, for the line. */
  serial: string;
  /** Wall ms of the last report that listed it ready. */
  lastSeenWall: number;
  /** Its adb_allowed_connection_time when last read (ms; 0 never lapses). */
  windowMs: number;
  /** Listed ready in the last report. */
  present: boolean;
  /** The absence (its lastSeenWall) already said, and how. */
  said?: { for: number; kind: 'lapsing' | 'lapsed' };
}

export interface SeenPhone {
  udid: string;
  serial: string;
  /** The window its inventory read on this connection; undefined: not read (yet). */
  windowMs: number | undefined;
}

export interface Due {
  entry: AuthEntry;
  kind: 'lapsing' | 'lapsed';
  /** Wall ms when the phone drops the host's key. */
  lapsesAt: number;
}

/** How many phones the ledger keeps: far more than a host's. */
export const MAX_ENTRIES = 2000;
/** A phone away this long past its lapse is forgotten: it is not coming back to this host's key. */
export const FORGET_AFTER_LAPSE_MS = 30 * 86_400_000;

/**
 * One report's step: `seen` the phones listed ready now (each once by
 * udid), `now` the wall clock, `leadMs` how long before the lapse the
 * warning comes. A phone whose window was never read is not followed: what
 * it keeps is unknown.
 */
export function step(before: ReadonlyMap<string, AuthEntry>, seen: readonly SeenPhone[], now: number, leadMs: number) {
  const entries = new Map<string, AuthEntry>();
  /** Something a restart must not lose changed (a phone came or went, was said, its window changed). */
  let changed = false;
  const here = new Map(seen.map((s) => [s.udid, s]));
  for (const [udid, old] of before) {
    const s = here.get(udid);
    if (s) {
      const windowMs = s.windowMs ?? old.windowMs;
      if (!old.present || windowMs !== old.windowMs || s.serial !== old.serial) changed = true;
      entries.set(udid, { ...old, serial: s.serial, lastSeenWall: Math.max(old.lastSeenWall, now), windowMs, present: true });
    } else {
      if (old.present) changed = true;
      entries.set(udid, { ...old, present: false });
    }
  }
  for (const s of seen) {
    if (entries.has(s.udid) || s.windowMs === undefined) continue;
    entries.set(s.udid, { udid: s.udid, serial: s.serial, lastSeenWall: now, windowMs: s.windowMs, present: true });
    changed = true;
  }
  const due: Due[] = [];
  for (const [udid, entry] of entries) {
    if (entry.present) continue;
    const { windowMs } = entry;
    if (windowMs === 0) continue;
    const lapsesAt = entry.lastSeenWall + windowMs;
    if (now - lapsesAt >= FORGET_AFTER_LAPSE_MS) {
      entries.delete(udid);
      changed = true;
      continue;
    }
    if (entry.said?.for === entry.lastSeenWall) continue;
    if (now < lapsesAt - leadMs) continue;
    const kind = now < lapsesAt ? 'lapsing' : 'lapsed';
    const said: AuthEntry = { ...entry, said: { for: entry.lastSeenWall, kind } };
    entries.set(udid, said);
    due.push({ entry: said, kind, lapsesAt });
    changed = true;
  }
  if (entries.size > MAX_ENTRIES) {
    // The longest away go first: a bound, not a policy a lab should reach.
    const oldest = [...entries.values()].filter((e) => !e.present).sort((a, b) => a.lastSeenWall - b.lastSeenWall);
    for (const e of oldest.slice(0, entries.size - MAX_ENTRIES)) entries.delete(e.udid);
    changed = true;
  }
  return { entries, due, changed };
}

// A fact one feature publishes for the others and for the operator: the
// phones taken out of service for failing again and again, with why, since
// when, until when and on what evidence. Quarantine writes it
// (src/features/quarantine/) and keeps it in the state directory; the
// in-service clock reads it (src/features/availability/), and so do the
// `quarantine` command and its channel to the daemon (src/cli/quarantine.ts):
// a release asked for is a file in the state directory the daemon takes.
// Keyed by the udid the cloud knows the phone by. The file's words are data
// the agent wrote, read back as data: a hand edit or garbage is refused
// field by field, never trusted to name a path or run anything.
import { MESSAGE_MAX_CHARS } from '../cloud/device-message.js';
import { facetKey } from './facet.js';
import { LAYERS, type Layer } from './phone-state.js';
import { jsonObject } from '../util/json-object.js';

export interface QuarantineEntry {
  /** adb's serial (or the iPhone's udid): what the operator names it by. */
  serial: string;
  /** Wall ms the current quarantine began; none: not quarantined now (its history is kept). */
  since?: number;
  /** Wall ms it ends, when a check passes after it. */
  until?: number;
  /** What the failures it rests on are blamed on. */
  layer?: Layer;
  /** Why, in a few words ("3 failures in 10 min"). */
  reason?: string;
  /** The failures it rests on, each with when (text made by the agent, the phone's own words clipped and cleaned). */
  evidence?: readonly string[];
  /** The incident file written when it began, in the state directory's incidents/. */
  incident?: string;
  /** Wall ms each quarantine of it began, within the forget horizon: a phone flapping in and out is held longer each time. */
  starts: readonly number[];
  /** How the last quarantine ended. */
  released?: { at: number; by: 'expiry' | 'operator' };
}

/** The quarantines, by udid; an entry without `since` is a phone's history only. */
export const QUARANTINE = facetKey<QuarantineEntry>('quarantine', 'device');

export const QUARANTINE_FILE = 'quarantine.json';
/** Where `device-agent quarantine release` leaves a request for the daemon, one file each. */
export const QUARANTINE_REQUESTS_DIR = 'quarantine-requests';
/** A state file bigger than this is not one the agent wrote (a few hundred bytes a phone). */
export const QUARANTINE_FILE_MAX_BYTES = 4 * 1024 * 1024;
/** A request is a line of JSON. */
export const REQUEST_MAX_BYTES = 4096;

/** Whether a phone is quarantined now (its entry has begun and not been released). */
export function quarantined(entry: QuarantineEntry | undefined): entry is QuarantineEntry & { since: number; until: number } {
  return entry?.since !== undefined && entry.until !== undefined;
}

const MAX_TEXT = 300;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A string field of the file as the agent would have written it: bounded, no control characters; anything else is dropped. */
function text(value: unknown, max = MAX_TEXT) {
  return typeof value === 'string' ? value.replace(CONTROL, ' ').slice(0, max) : undefined;
}

function time(value: unknown) {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** One entry read back, field by field; undefined when it has no serial (nothing to name it by). */
export function entryFrom(value: unknown): QuarantineEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const serial = text(v.serial, 256);
  if (serial === undefined || serial === '') return undefined;
  const since = time(v.since);
  const until = time(v.until);
  const layer = (LAYERS as readonly string[]).includes(v.layer as string) ? (v.layer as Layer) : undefined;
  // Each as quarantine wrote it: within the message's limit.
  const evidence = Array.isArray(v.evidence) ? v.evidence.slice(0, 20).flatMap((e) => text(e, MESSAGE_MAX_CHARS) ?? []) : undefined;
  const starts = Array.isArray(v.starts) ? v.starts.slice(-64).flatMap((t) => time(t) ?? []) : [];
  const released = typeof v.released === 'object' && v.released !== null ? (v.released as Record<string, unknown>) : undefined;
  const releasedAt = time(released?.at);
  const reason = text(v.reason);
  const incident = text(v.incident, 200);
  return {
    serial,
    // Both or neither: a quarantine without an end would never end.
    ...(since !== undefined && until !== undefined && { since, until }),
    ...(layer && { layer }),
    ...(reason !== undefined && { reason }),
    ...(evidence && { evidence }),
    ...(incident !== undefined && /^[\w.-]+\.json$/.test(incident) && { incident }),
    starts,
    ...(releasedAt !== undefined && (released?.by === 'expiry' || released?.by === 'operator') && { released: { at: releasedAt, by: released.by } }),
  };
}

/** The state file read back: its entries by udid; undefined when it is not one the agent wrote. */
export function quarantineFileFrom(textRead: string) {
  const value = jsonObject(textRead);
  if (value?.version !== 1) return undefined;
  const phones = value.phones;
  if (typeof phones !== 'object' || phones === null) return undefined;
  const out = new Map<string, QuarantineEntry>();
  for (const [udid, raw] of Object.entries(phones)) {
    const entry = entryFrom(raw);
    // A udid kept only as the agent would have written it: what text() leaves as it is.
    if (entry && text(udid, 256) === udid) out.set(udid, entry);
  }
  return out;
}

export function quarantineFileText(entries: ReadonlyArray<[string, QuarantineEntry]>) {
  return `${JSON.stringify({ version: 1, phones: Object.fromEntries(entries) })}\n`;
}

/** A release an operator asked for: the phone by its serial or udid, who asked, when (wall ms). */
export interface ReleaseRequest {
  release: string;
  by: string;
  at: number;
}

export function requestFrom(textRead: string): ReleaseRequest | undefined {
  const v = jsonObject(textRead);
  if (v === undefined) return undefined;
  const release = text(v.release, 256);
  const at = time(v.at);
  if (release === undefined || release === '' || at === undefined) return undefined;
  return { release, by: text(v.by, 64) ?? 'unknown', at };
}

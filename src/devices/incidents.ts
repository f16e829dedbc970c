// A capability one feature offers the others, and the files it keeps for the
// operator: each phone's recent history (the flight recorder,
// src/features/recorder/), written to one file in the state directory's
// incidents/ when an incident starts. Quarantine adds its evidence and starts
// an incident through it (src/features/quarantine/), the in-service clock
// adds each change of a phone's state (src/features/availability/), and
// `device-agent incidents` reads the files back (src/cli/incidents.ts); none
// imports another. What a phone said is data: clipped, control characters
// out, secrets masked before it is kept; a file read back is checked field
// by field.
import { sharedKey } from '../util/shared-parts.js';
import { jsonObject } from '../util/json-object.js';

/** What a phone's ring keeps. */
export const EVENT_KINDS = ['adb', 'kernel', 'readiness', 'action', 'battery', 'cloud', 'inventory', 'state', 'quarantine'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** What starts an incident: a quarantine, a call for a person, a recovery action that failed. */
export const INCIDENT_KINDS = ['quarantine', 'person-needed', 'recovery-failed'] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

export interface RecordedEvent {
  /** Wall ms. */
  at: number;
  kind: EventKind;
  text: string;
}

/** A phone as the recorder keys it: by the udid the cloud knows, else its serial. */
export interface PhoneRef {
  udid?: string;
  serial: string;
}

export interface IncidentLog {
  /** One more event in the phone's ring. */
  note(phone: PhoneRef, kind: EventKind, text: string): void;
  /** An incident starts: the phone's ring goes to one file; its name, or undefined when it could not be kept. */
  incident(phone: PhoneRef, kind: IncidentKind, cause: string): string | undefined;
}

/** Where the flight recorder offers its log (FeatureContext.shared). */
export const INCIDENT_LOG = sharedKey<IncidentLog>('incident-log');

/** The state directory's folder of incident files. */
export const INCIDENTS_DIR = 'incidents';
/** An incident file bigger than this is not one the agent wrote. */
export const INCIDENT_MAX_BYTES = 1024 * 1024;
/** An event's text at most, in characters. */
export const EVENT_TEXT_MAX = 400;

export interface IncidentFile {
  udid?: string;
  serial: string;
  kind: IncidentKind;
  cause: string;
  /** Wall ms it started. */
  at: number;
  /** The phone's ring then, oldest first. */
  events: RecordedEvent[];
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A device's words made fit to keep and print: one line, control characters out, bounded. */
export function keepable(text: string, max = EVENT_TEXT_MAX) {
  const line = text.replace(CONTROL, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A name made of a phone's id for a file: only letters, digits, dot, dash and underscore, bounded (a udid is the phone's own words). */
export function fileSafe(id: string) {
  return (
    id
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 64) || '_'
  );
}

/** The file an incident goes to: its time first, so that names sort oldest first. */
export function incidentFileName(at: number, phone: PhoneRef, kind: IncidentKind, seq: number) {
  const time = new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${time}-${String(seq % 1000).padStart(3, '0')}-${fileSafe(phone.udid ?? phone.serial)}-${kind}.json`;
}

/** What an incident file's name says: when it started (wall ms, to the second), the phone's id as made file-safe, its kind. */
export function incidentNameParts(name: string) {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z-\d{3}-(.+)-(quarantine|person-needed|recovery-failed)\.json$/.exec(name);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return { at: Date.UTC(y, mo - 1, d, h, mi, sec), id: m[7]!, kind: m[8] as IncidentKind };
}

/** The phone an incident file name names (its id as made file-safe). */
export function idOfFileName(name: string) {
  return incidentNameParts(name)?.id;
}

export function incidentText(file: IncidentFile) {
  return `${JSON.stringify({ version: 1, ...file })}\n`;
}

/** An incident file read back, field by field; undefined when it is not one the agent wrote. */
export function incidentFrom(textRead: string): IncidentFile | undefined {
  const v = jsonObject(textRead);
  if (v === undefined) return undefined;
  if (v.version !== 1 || typeof v.serial !== 'string' || typeof v.cause !== 'string' || typeof v.at !== 'number') return undefined;
  if (!(INCIDENT_KINDS as readonly string[]).includes(v.kind as string) || !Array.isArray(v.events)) return undefined;
  const events = v.events.flatMap((e): RecordedEvent[] => {
    if (typeof e !== 'object' || e === null) return [];
    const { at, kind, text } = e as Record<string, unknown>;
    if (typeof at !== 'number' || typeof text !== 'string' || !(EVENT_KINDS as readonly string[]).includes(kind as string)) return [];
    return [{ at, kind: kind as EventKind, text: keepable(text) }];
  });
  return {
    ...(typeof v.udid === 'string' && { udid: keepable(v.udid, 256) }),
    serial: keepable(v.serial, 256),
    kind: v.kind as IncidentKind,
    cause: keepable(v.cause),
    at: v.at,
    events,
  };
}
